//! Text snapshots (`insta`) of what the binary prints: one file per output
//! under `tests/snapshots/`, with what changes from run to run (this
//! process's temporary paths, the checkout's folder, timings) redacted, so
//! that a changed message is a reviewed diff (see the README's "Testing").

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use super::bin::BIN;
use super::temp::temp_prefix;

/// Where every snapshot is kept.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// `text` with this process's temporary paths written `[TMP]/NAME` (and a
/// temporary name alone, as a fixture's `name`, `[TMP]-NAME`) and the
/// checkout's folder `[ROOT]`.
pub fn redact(text: &str) -> String {
    let prefix = temp_prefix();
    let in_temp = format!("{}/{prefix}", std::env::temp_dir().display());
    let text = replace_numbered(text, &in_temp, "[TMP]/");
    replace_numbered(&text, &prefix, "[TMP]-").replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]")
}

/// `text` with each `needle` followed by the counter that makes a
/// temporary name unique (`7-`) written `with`.
fn replace_numbered(text: &str, needle: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(needle) {
        out.push_str(&rest[..at]);
        out.push_str(with);
        let after = &rest[at + needle.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        rest = after[digits..]
            .strip_prefix('-')
            .unwrap_or(&after[digits..]);
    }
    out.push_str(rest);
    out
}

/// `value` with every number under one of `keys` replaced by `"[figure]"`
/// (timings and sizes that differ from run to run).
pub fn redact_figures(value: &mut Value, keys: &[&str]) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                if member.is_number() && keys.contains(&key.as_str()) {
                    *member = Value::String("[figure]".into());
                } else {
                    redact_figures(member, keys);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact_figures(item, keys)),
        _ => {}
    }
}

/// Runs the binary from the checkout's folder (so relative paths print as
/// a user would type them) and writes what a user sees: the command, the
/// exit code, stdout and stderr, as printed.
pub fn transcript(args: &[&str]) -> String {
    transcript_of(args, &run_here(args))
}

/// Runs the binary from the checkout's folder.
pub fn run_here(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// The transcript of an `output` of `args`.
pub fn transcript_of(args: &[&str], output: &Output) -> String {
    let code = output
        .status
        .code()
        .map_or_else(|| "a signal".to_owned(), |c| c.to_string());
    redact(&format!(
        "$ agui-replay {}\nexit {code}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// Asserts that `$text` (redacted) is the snapshot `$name` of this module,
/// kept in `tests/snapshots/`.
macro_rules! assert_output {
    ($name:expr, $text:expr) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path($crate::common::snapshot::dir());
        settings.set_omit_expression(true);
        settings.bind(|| {
            insta::assert_snapshot!($name, $crate::common::snapshot::redact(&$text));
        });
    }};
}

pub(crate) use assert_output;

/// Runs `args… --out OUT` with `OUT` a fresh file named `out_name`, and
/// writes the transcript followed by what was written to `OUT`.
pub fn transcript_with_file(args: &[&str], out_name: &str) -> String {
    let out = super::temp::TempPath::new("snapshot", out_name);
    let mut all = args.to_vec();
    all.extend_from_slice(&["--out", out.s()]);
    let output = run_here(&all);
    let written = std::fs::read(out.path()).unwrap_or_default();
    format!(
        "{}--- {out_name}\n{}",
        transcript_of(&all, &output),
        redact(&String::from_utf8_lossy(&written))
    )
}
