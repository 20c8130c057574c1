#!/usr/bin/env bash
# Runs exactly what CI runs (.ci/run calls this): formatting, lints, tests,
# and the rule that the engine knows nothing of egui (STYLE.md).
set -euo pipefail
cd "$(dirname "$0")"

echo "== cargo fmt --check"
cargo fmt --check

echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --locked

echo "== the engine modules do not use egui"
engine=()
for path in src/diagnostic.rs src/protocol src/input src/replay src/timeline src/store src/record src/export src/source.rs src/rules.rs src/diff.rs src/search src/bench; do
    [ -e "$path" ] && engine+=("$path")
done
if grep -rn -i "egui" "${engine[@]}"; then
    echo "error: egui appears in an engine module (the UI reads the engine, not the reverse)" >&2
    exit 1
fi
echo "ok"
