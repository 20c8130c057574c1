//! The Node peer: the real `@ag-ui/client` 1.0.0 in `tests/peer/node`
//! (installed by `npm ci --prefix tests/peer/node`, as `.ci/run` does).
//! Tests that need it say that they did not run where it is missing, and
//! fail instead when `AGUI_PEER_REQUIRED=1` (CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The folder of the Node peer.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peer/node")
}

/// Whether a missing peer fails the tests (`AGUI_PEER_REQUIRED=1`).
pub fn required() -> bool {
    std::env::var("AGUI_PEER_REQUIRED").is_ok_and(|v| v == "1")
}

/// The peer's folder when Node runs and `@ag-ui/client` 1.0.0 is
/// installed there; otherwise why not.
pub fn installed() -> Result<PathBuf, String> {
    let dir = dir();
    let installed = dir.join("node_modules/@ag-ui/client/package.json");
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => return Err(format!("`node --version` exited with {}", out.status)),
        Err(e) => return Err(format!("Node is not installed (`node`: {e})")),
    }
    if !installed.is_file() {
        return Err(format!(
            "the peer is not installed: run `npm ci` in {} ({} is missing)",
            dir.display(),
            installed.display()
        ));
    }
    let version = std::fs::read_to_string(&installed)
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned));
    if version.as_deref() != Some("1.0.0") {
        return Err(format!(
            "the installed @ag-ui/client is {version:?}, not 1.0.0: run `npm ci` in {}",
            dir.display()
        ));
    }
    Ok(dir)
}
