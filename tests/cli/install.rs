//! What installing gives (issue 45): `--version` with the commit built
//! from, and `desktop install|uninstall` in a temporary data folder (the
//! files written, read back, and removed; the desktop itself is not
//! tested).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::bin::BIN;
use crate::common::*;

/// The binary run with `XDG_DATA_HOME` (and `HOME`) in `data`.
fn run_in(data: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", data)
        .env("HOME", data.join("home"))
        .output()
        .expect("the binary runs")
}

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn version_names_the_commit_built_from() {
    // Issue 45, point 3.
    let output = run_ok(&["--version"]);
    let line = stdout(&output);
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned());
    let expected = match head {
        Some(hash) => format!(
            "agui-replay {} (commit {hash})\n",
            env!("CARGO_PKG_VERSION")
        ),
        None => format!(
            "agui-replay {} (unknown commit)\n",
            env!("CARGO_PKG_VERSION")
        ),
    };
    assert_eq!(line, expected);
}

#[cfg(feature = "app")]
#[test]
fn desktop_install_writes_the_entry_icon_and_types_and_uninstall_removes_them() {
    // Issue 45, point 4.
    let data = TempDir::new("desktop");
    let output = run_in(data.path(), &["desktop", "install"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let entry_path = data.join("applications/agui-replay.desktop");
    let svg = data.join("icons/hicolor/scalable/apps/agui-replay.svg");
    let png = data.join("icons/hicolor/256x256/apps/agui-replay.png");
    let mime = data.join("mime/packages/agui-replay.xml");
    let ours = [&entry_path, &svg, &png, &mime];
    for path in ours {
        assert!(
            stdout(&output).contains(&format!("wrote {}\n", path.display())),
            "{}",
            stdout(&output)
        );
    }

    // Read back: the entry runs this binary on the file opened, with the
    // icon, for the three types.
    let entry = std::fs::read_to_string(&entry_path).expect("the entry");
    let exe = Path::new(BIN).canonicalize().expect("the binary");
    let exec = format!("\nExec={} %f\n", exe.display());
    assert!(entry.starts_with("[Desktop Entry]\n"), "{entry}");
    assert!(entry.contains(&exec), "{entry}");
    assert!(entry.contains("\nIcon=agui-replay\n"), "{entry}");
    assert!(
        entry.contains(
            "\nMimeType=application/x-agui-recording;application/x-agui-jsonl;application/x-har;\n"
        ),
        "{entry}"
    );
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    assert_eq!(
        std::fs::read(&png).expect("png"),
        std::fs::read(assets.join("agui-replay.png")).expect("asset")
    );
    assert_eq!(
        std::fs::read(&svg).expect("svg"),
        std::fs::read(assets.join("agui-replay.svg")).expect("asset")
    );
    let types = std::fs::read_to_string(&mime).expect("mime package");
    for needle in [
        "type=\"application/x-agui-recording\"",
        "<glob pattern=\"*.rec\"/>",
        "<glob pattern=\"*.agui.jsonl\"/>",
        "<glob pattern=\"*.har\"/>",
    ] {
        assert!(types.contains(needle), "{needle} in {types}");
    }
    // Where update-mime-database ran, the database knows the types.
    if stdout(&output).contains("ran update-mime-database") {
        let globs = std::fs::read_to_string(data.join("mime/globs2")).expect("globs2");
        assert!(
            globs.contains("application/x-agui-recording:*.rec"),
            "{globs}"
        );
    }

    let output = run_in(data.path(), &["desktop", "uninstall"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for path in ours {
        assert!(!path.exists(), "{} removed", path.display());
        assert!(
            stdout(&output).contains(&format!("removed {}\n", path.display())),
            "{}",
            stdout(&output)
        );
    }
    // What is left is the databases, made again without the types.
    for file in files_under(data.path()) {
        let bytes = std::fs::read(&file).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains("agui"),
            "{} still names agui-replay",
            file.display()
        );
    }

    let output = run_in(data.path(), &["desktop", "uninstall"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("nothing to remove in "),
        "{}",
        stdout(&output)
    );
}

#[cfg(not(feature = "app"))]
#[test]
fn desktop_install_without_the_app_is_refused() {
    let data = TempDir::new("desktop-no-app");
    let output = run_in(data.path(), &["desktop", "install"]);
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("no desktop app"),
        "{}",
        stderr(&output)
    );
    assert!(files_under(data.path()).is_empty());
}
