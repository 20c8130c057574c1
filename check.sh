#!/usr/bin/env bash
# Runs exactly what CI runs (.ci/run calls this): formatting, lints, tests,
# and the engine built and tested without the app's crates (STYLE.md).
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo fmt --check"
cargo fmt --check

echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --locked

echo "== the engine without the app: no UI crate in its dependency graph"
if cargo tree --locked --no-default-features -e normal --prefix none | grep -E '^(egui|eframe|egui_extras|egui-winit|egui_glow|rfd) '; then
    echo "error: a UI crate is in the engine's dependency graph (the UI reads the engine, not the reverse)" >&2
    exit 1
fi

echo "== cargo clippy --no-default-features --all-targets -- -D warnings"
cargo clippy --no-default-features --all-targets --locked -- -D warnings

echo "== cargo test --no-default-features (the engine and the command line, no app)"
cargo test --no-default-features --locked
echo "== fuzz/run 15: every fuzz target for 15 s, from its committed corpus (issue 12)"
fuzz/run 15
echo "ok"
