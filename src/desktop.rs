//! `agui-replay desktop install|uninstall` (issue 45): on Linux, the app
//! in the launcher and the file types it opens, for one user. `install`
//! writes four files into the user's data folder (`$XDG_DATA_HOME`, by
//! default `~/.local/share`):
//!
//! - `applications/agui-replay.desktop`, the desktop entry, which runs this
//!   binary (where it is now) on the file double-clicked;
//! - `icons/hicolor/scalable/apps/agui-replay.svg` and
//!   `icons/hicolor/256x256/apps/agui-replay.png`, the icon
//!   (`assets/agui-replay.svg`, drawn by `tools/draw-icon.py`);
//! - `mime/packages/agui-replay.xml`, the file types: recordings (`*.rec`,
//!   and any SQLite file whose `application_id` is a recording's), AG-UI
//!   JSON lines (`*.agui.jsonl`) and HAR files (`*.har`).
//!
//! `uninstall` removes exactly those four files. [`refresh`] runs
//! `update-mime-database` and `update-desktop-database` (and
//! `gtk-update-icon-cache` where the folder already has an icon cache) on
//! the folders, when those tools are installed, so that the launcher and
//! the file manager see the change at once.
//!
//! This module only writes files; it knows nothing of the app.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::store::APPLICATION_ID;

/// The icon, as drawn (`assets/agui-replay.svg`).
pub const ICON_SVG: &str = include_str!("../assets/agui-replay.svg");

/// The icon at 256×256 (`assets/agui-replay.png`); the app's window icon
/// too.
pub const ICON_PNG: &[u8] = include_bytes!("../assets/agui-replay.png");

/// The name of the desktop entry, the icon and the MIME package.
pub const APP_ID: &str = "agui-replay";

/// The MIME type of a recording.
pub const MIME_RECORDING: &str = "application/x-agui-recording";
/// The MIME type of AG-UI JSON lines (`.agui.jsonl`, as AG-UI DevTools
/// saves them).
pub const MIME_JSONL: &str = "application/x-agui-jsonl";
/// The MIME type of a HAR file (no registered type exists).
pub const MIME_HAR: &str = "application/x-har";

/// What went wrong installing or removing the desktop files.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// A file or folder could not be written or removed.
    #[error("cannot {what} ({}): {}", crate::error::io_cause(.source), .path.display())]
    Io {
        /// What was being done (`write`, `remove`, `make the folder`).
        what: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The binary's path is not UTF-8, which a desktop entry must be.
    #[error("the binary's path is not UTF-8, which a desktop entry needs: {}", .0.display())]
    NotUtf8(PathBuf),
}

/// One file `install` writes: where, relative to the data folder, and its
/// bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopFile {
    /// The path under the data folder.
    pub relative: PathBuf,
    /// The content.
    pub bytes: Vec<u8>,
}

/// The paths, under the data folder, of the files `install` writes and
/// `uninstall` removes.
pub fn relative_paths() -> [PathBuf; 4] {
    [
        Path::new("applications").join(format!("{APP_ID}.desktop")),
        Path::new("icons/hicolor/scalable/apps").join(format!("{APP_ID}.svg")),
        Path::new("icons/hicolor/256x256/apps").join(format!("{APP_ID}.png")),
        Path::new("mime/packages").join(format!("{APP_ID}.xml")),
    ]
}

/// The files `install` writes for the binary at `exe`, in the order of
/// [`relative_paths`].
pub fn desktop_files(exe: &Path) -> Result<Vec<DesktopFile>, DesktopError> {
    let exe_text = exe
        .to_str()
        .ok_or_else(|| DesktopError::NotUtf8(exe.to_owned()))?;
    let contents = [
        desktop_entry(exe_text).into_bytes(),
        ICON_SVG.as_bytes().to_vec(),
        ICON_PNG.to_vec(),
        mime_package().into_bytes(),
    ];
    Ok(relative_paths()
        .into_iter()
        .zip(contents)
        .map(|(relative, bytes)| DesktopFile { relative, bytes })
        .collect())
}

/// The desktop entry for the binary at `exe` (the Desktop Entry
/// Specification 1.4, which desktop-file-validate 0.26 knows).
pub fn desktop_entry(exe: &str) -> String {
    format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Version=1.4\n\
         Name=agui-replay\n\
         GenericName=AG-UI stream debugger\n\
         Comment=Record and replay AG-UI agent event streams\n\
         Exec={} %f\n\
         Icon={APP_ID}\n\
         Terminal=false\n\
         Categories=Development;Debugger;\n\
         MimeType={MIME_RECORDING};{MIME_JSONL};{MIME_HAR};\n\
         Keywords=AG-UI;agent;replay;recording;\n\
         StartupWMClass={APP_ID}\n",
        exec_argument(exe)
    )
}

/// `arg` as one argument of an `Exec` key: quoted when it has a reserved
/// character, `"`, `` ` ``, `$` and `\` escaped inside the quotes, `%`
/// doubled (not a field code), then escaped as every string value is.
pub fn exec_argument(arg: &str) -> String {
    const RESERVED: &[char] = &[
        ' ', '\t', '\n', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(',
        ')', '`', '=',
    ];
    let mut quoted = String::new();
    if arg.contains(RESERVED) || arg.is_empty() {
        quoted.push('"');
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                quoted.push('\\');
            }
            quoted.push(c);
        }
        quoted.push('"');
    } else {
        quoted.push_str(arg);
    }
    let mut value = String::new();
    for c in quoted.chars() {
        match c {
            '%' => value.push_str("%%"),
            '\\' => value.push_str("\\\\"),
            '\n' => value.push_str("\\n"),
            '\t' => value.push_str("\\t"),
            '\r' => value.push_str("\\r"),
            c => value.push(c),
        }
    }
    value
}

/// The shared-mime-info package of the three file types.
pub fn mime_package() -> String {
    let [a, b, c, d] = APPLICATION_ID.to_be_bytes();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="{MIME_RECORDING}">
    <comment>agui-replay recording</comment>
    <sub-class-of type="application/vnd.sqlite3"/>
    <icon name="{APP_ID}"/>
    <magic priority="60">
      <match type="string" offset="0" value="SQLite format 3">
        <match type="big32" offset="68" value="0x{a:02x}{b:02x}{c:02x}{d:02x}"/>
      </match>
    </magic>
    <glob pattern="*.rec"/>
  </mime-type>
  <mime-type type="{MIME_JSONL}">
    <comment>AG-UI event stream (JSON lines)</comment>
    <sub-class-of type="text/plain"/>
    <icon name="{APP_ID}"/>
    <glob pattern="*.agui.jsonl"/>
  </mime-type>
  <mime-type type="{MIME_HAR}">
    <comment>HTTP archive (HAR)</comment>
    <sub-class-of type="application/json"/>
    <glob pattern="*.har"/>
  </mime-type>
</mime-info>
"#
    )
}

/// Writes the desktop files for the binary at `exe` into `data_dir`
/// (each written beside and renamed, so none is left cut short); returns
/// the paths written.
pub fn install(data_dir: &Path, exe: &Path) -> Result<Vec<PathBuf>, DesktopError> {
    let io = |what, path: &Path| {
        let path = path.to_owned();
        move |source| DesktopError::Io { what, path, source }
    };
    let mut written = Vec::new();
    for file in desktop_files(exe)? {
        let path = data_dir.join(&file.relative);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io("make the folder", folder))?;
        }
        let mut partial = path.clone().into_os_string();
        partial.push(".partial");
        let partial = PathBuf::from(partial);
        std::fs::write(&partial, &file.bytes).map_err(io("write", &partial))?;
        std::fs::rename(&partial, &path).map_err(io("write", &path))?;
        written.push(path);
    }
    Ok(written)
}

/// Removes the files [`install`] writes from `data_dir`, those that are
/// there; returns the paths removed. Nothing else is touched (the folders
/// stay: they are the user's).
pub fn uninstall(data_dir: &Path) -> Result<Vec<PathBuf>, DesktopError> {
    let mut removed = Vec::new();
    for relative in relative_paths() {
        let path = data_dir.join(relative);
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(source) => {
                return Err(DesktopError::Io {
                    what: "remove",
                    path,
                    source,
                });
            }
        }
    }
    Ok(removed)
}

/// What became of one database refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refresh {
    /// The tool ran and succeeded.
    Ran(String),
    /// The tool is not installed: the desktop reads the files at its next
    /// start, or when it next refreshes.
    NotInstalled(String),
    /// The tool ran and failed (its message).
    Failed(String, String),
}

/// Refreshes the MIME and desktop databases (and a stale icon cache) of
/// `data_dir` with the system's tools, those that are installed.
pub fn refresh(data_dir: &Path) -> Vec<Refresh> {
    let mut runs: Vec<(&str, Vec<PathBuf>)> = vec![
        ("update-mime-database", vec![data_dir.join("mime")]),
        (
            "update-desktop-database",
            vec![data_dir.join("applications")],
        ),
    ];
    // A user's icon folder rarely has a cache; one that has must be made
    // again or the new icon is not found.
    let hicolor = data_dir.join("icons/hicolor");
    if hicolor.join("icon-theme.cache").is_file() {
        runs.push((
            "gtk-update-icon-cache",
            vec!["-q".into(), "-t".into(), "-f".into(), hicolor],
        ));
    }
    runs.into_iter()
        .map(|(tool, args)| {
            let ran = Command::new(tool)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output();
            match ran {
                Ok(out) if out.status.success() => Refresh::Ran(tool.to_owned()),
                Ok(out) => Refresh::Failed(
                    tool.to_owned(),
                    String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                ),
                Err(e) if e.kind() == ErrorKind::NotFound => Refresh::NotInstalled(tool.to_owned()),
                Err(e) => Refresh::Failed(tool.to_owned(), e.to_string()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("agui-replay-desktop-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp dir");
        dir
    }

    /// Every file under `dir`, relative, sorted.
    fn files_under(dir: &Path) -> Vec<PathBuf> {
        fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    out.push(path.strip_prefix(root).expect("under root").to_owned());
                }
            }
        }
        let mut out = Vec::new();
        walk(dir, dir, &mut out);
        out.sort();
        out
    }

    #[test]
    fn install_writes_the_four_files_and_uninstall_removes_exactly_them() {
        // Issue 45, point 4.
        let data = temp_dir("install");
        // The user's own files, which neither command may touch.
        let theirs = data.join("applications").join("editor.desktop");
        std::fs::create_dir_all(theirs.parent().expect("parent")).expect("mkdir");
        std::fs::write(&theirs, "[Desktop Entry]\nName=Editor\n").expect("write");
        let exe = Path::new("/opt/agui replay/bin/agui-replay");

        let written = install(&data, exe).expect("installed");
        let relative: Vec<PathBuf> = relative_paths().into_iter().collect();
        assert_eq!(
            written,
            relative.iter().map(|r| data.join(r)).collect::<Vec<_>>()
        );
        let mut expected = relative.clone();
        expected.push(PathBuf::from("applications/editor.desktop"));
        expected.sort();
        assert_eq!(files_under(&data), expected, "no partial file left");

        let entry = std::fs::read_to_string(&written[0]).expect("read");
        assert!(
            entry.contains("\nExec=\"/opt/agui replay/bin/agui-replay\" %f\n"),
            "{entry}"
        );
        assert!(entry.contains(&format!(
            "\nMimeType={MIME_RECORDING};{MIME_JSONL};{MIME_HAR};\n"
        )));
        assert_eq!(std::fs::read(&written[2]).expect("read"), ICON_PNG);
        assert!(ICON_PNG.starts_with(b"\x89PNG\r\n\x1a\n"));
        let mime = std::fs::read_to_string(&written[3]).expect("read");
        assert!(mime.contains(r#"value="0x41475250""#), "{mime}");
        for glob in ["*.rec", "*.agui.jsonl", "*.har"] {
            assert!(
                mime.contains(&format!("<glob pattern=\"{glob}\"/>")),
                "{glob}"
            );
        }

        // Installed again (a new binary path): the same files, rewritten.
        install(&data, Path::new("/usr/bin/agui-replay")).expect("again");
        let entry = std::fs::read_to_string(&written[0]).expect("read");
        assert!(
            entry.contains("\nExec=/usr/bin/agui-replay %f\n"),
            "{entry}"
        );

        let removed = uninstall(&data).expect("uninstalled");
        assert_eq!(removed, written);
        assert_eq!(
            files_under(&data),
            [PathBuf::from("applications/editor.desktop")]
        );
        // Uninstalling what is not there is no error, and removes nothing.
        assert_eq!(uninstall(&data).expect("again"), Vec::<PathBuf>::new());
        let _ = std::fs::remove_dir_all(&data);
    }

    #[test]
    fn an_exec_argument_is_quoted_and_escaped_as_the_desktop_entry_spec_says() {
        // Issue 45, point 4: a binary under a path with a space, a quote,
        // a dollar, a backslash or a percent sign still starts.
        assert_eq!(
            exec_argument("/usr/bin/agui-replay"),
            "/usr/bin/agui-replay"
        );
        assert_eq!(exec_argument("/a b/x"), "\"/a b/x\"");
        assert_eq!(exec_argument("/a\"b/x"), "\"/a\\\\\"b/x\"");
        assert_eq!(exec_argument("/a$b/x"), "\"/a\\\\$b/x\"");
        assert_eq!(exec_argument("/a\\b/x"), "\"/a\\\\\\\\b/x\"");
        assert_eq!(exec_argument("/100%/x"), "/100%%/x");
    }

    #[cfg(unix)]
    #[test]
    fn a_binary_path_that_is_not_utf8_is_refused() {
        use std::os::unix::ffi::OsStrExt;
        let exe = Path::new(std::ffi::OsStr::from_bytes(b"/opt/\xff/agui-replay"));
        let data = temp_dir("not-utf8");
        let error = install(&data, exe).expect_err("refused");
        assert!(matches!(error, DesktopError::NotUtf8(_)), "{error}");
        assert!(files_under(&data).is_empty(), "nothing written");
        let _ = std::fs::remove_dir_all(&data);
    }
}
