//! The bundled demo, opened from the user's copy of it: bookmarks and notes
//! are written into the recording that is open, and the checkout's
//! `recordings/demo.rec` must stay as shipped (issue 13, point 11). The
//! copy lives in `$XDG_DATA_HOME/agui-replay/demo.rec` (or
//! `~/.local/share/…`), made from the bundled file when it is missing or
//! when the bundled file changed since (the earlier copy is kept beside it
//! as `demo.rec.old`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The user's data folder, as the XDG base directory rules say:
/// `$XDG_DATA_HOME` when set to an absolute path, else `$HOME/.local/share`.
pub fn data_dir_from(xdg_data_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    let xdg = xdg_data_home
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute());
    xdg.or_else(|| {
        home.filter(|h| !h.is_empty())
            .map(|home| PathBuf::from(home).join(".local").join("share"))
    })
}

/// The user's data folder, from the environment.
pub fn user_data_dir() -> Option<PathBuf> {
    data_dir_from(
        std::env::var_os("XDG_DATA_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// Where the copy of the demo is kept in `data_dir`.
pub fn demo_copy_path(data_dir: &Path) -> PathBuf {
    data_dir.join("agui-replay").join("demo.rec")
}

/// What the bundled file was when it was copied: its length and an FNV-1a
/// hash of its bytes (stable across builds, unlike std's hasher).
fn fingerprint(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{} {hash:016x}\n", bytes.len())
}

/// The file beside the copy that says which bundled file it was made from.
fn stamp_path(copy: &Path) -> PathBuf {
    copy.with_file_name(".demo.rec.source")
}

/// `path` with `suffix` appended to its name (`demo.rec-wal`).
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The user's copy of the `bundled` demo in `data_dir`, made (or made
/// again, the bundled file having changed) as needed. The bundled file is
/// only read.
pub fn demo_copy(bundled: &Path, data_dir: &Path) -> Result<PathBuf, String> {
    let cause = |what: &str, path: &Path, e: std::io::Error| {
        format!(
            "cannot {what} ({}): {}",
            crate::error::io_cause(&e),
            path.display()
        )
    };
    let bytes = std::fs::read(bundled).map_err(|e| cause("read the demo", bundled, e))?;
    demo_copy_of(&bytes, data_dir)
}

/// The demo built into the binary (`recordings/demo.rec` when it was
/// built), so that an installed binary (a wheel, `cargo install`) opens it
/// with no checkout beside it (issue 45).
pub const BUNDLED: &[u8] = include_bytes!("../../recordings/demo.rec");

/// The user's copy in `data_dir` of the demo whose bytes are `bytes`,
/// made (or made again) as [`demo_copy`] makes it.
pub fn demo_copy_of(bytes: &[u8], data_dir: &Path) -> Result<PathBuf, String> {
    let cause = |what: &str, path: &Path, e: std::io::Error| {
        format!(
            "cannot {what} ({}): {}",
            crate::error::io_cause(&e),
            path.display()
        )
    };
    let copy = demo_copy_path(data_dir);
    let stamp = stamp_path(&copy);
    let made_from = fingerprint(bytes);
    if copy.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s == made_from) {
        return Ok(copy);
    }
    let folder = copy.parent().unwrap_or(data_dir);
    std::fs::create_dir_all(folder).map_err(|e| cause("make the folder", folder, e))?;
    if copy.exists() {
        // An earlier copy, with the user's bookmarks: kept aside, with the
        // SQLite files that go with it.
        let old = copy.with_extension("rec.old");
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let from = with_suffix(&copy, suffix);
            if from.exists() {
                std::fs::rename(&from, with_suffix(&old, suffix))
                    .map_err(|e| cause("set the earlier copy aside", &from, e))?;
            }
        }
    }
    // Written beside and renamed: a copy cut short is never opened.
    let partial = copy.with_extension("rec.partial");
    std::fs::write(&partial, bytes).map_err(|e| cause("copy the demo", &partial, e))?;
    std::fs::rename(&partial, &copy).map_err(|e| cause("copy the demo", &copy, e))?;
    std::fs::write(&stamp, made_from).map_err(|e| cause("write", &stamp, e))?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("agui-replay-demo-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temp dir");
        dir
    }

    #[test]
    fn the_data_folder_follows_the_xdg_rules() {
        let home = Some(OsStr::new("/home/u"));
        assert_eq!(
            data_dir_from(Some(OsStr::new("/data")), home),
            Some(PathBuf::from("/data"))
        );
        // A relative XDG_DATA_HOME is ignored, as the rules say.
        assert_eq!(
            data_dir_from(Some(OsStr::new("data")), home),
            Some(PathBuf::from("/home/u/.local/share"))
        );
        assert_eq!(
            data_dir_from(None, home),
            Some(PathBuf::from("/home/u/.local/share"))
        );
        assert_eq!(data_dir_from(None, None), None);
        assert_eq!(data_dir_from(None, Some(OsStr::new(""))), None);
    }

    #[test]
    fn the_copy_is_made_once_and_again_when_the_bundled_file_changes() {
        // Issue 13, point 11.
        let dir = temp_dir("copy");
        let bundled = dir.join("bundled.rec");
        std::fs::write(&bundled, b"first").expect("write");
        let data = dir.join("data");
        let copy = demo_copy(&bundled, &data).expect("copied");
        assert_eq!(copy, data.join("agui-replay").join("demo.rec"));
        assert_eq!(std::fs::read(&copy).expect("read"), b"first");
        // The user's changes to the copy stay while the bundled file does.
        std::fs::write(&copy, b"first, bookmarked").expect("write");
        demo_copy(&bundled, &data).expect("kept");
        assert_eq!(std::fs::read(&copy).expect("read"), b"first, bookmarked");
        // A new bundled demo replaces it; the old one is kept aside.
        std::fs::write(&bundled, b"second").expect("write");
        demo_copy(&bundled, &data).expect("copied again");
        assert_eq!(std::fs::read(&copy).expect("read"), b"second");
        assert_eq!(
            std::fs::read(copy.with_extension("rec.old")).expect("read"),
            b"first, bookmarked"
        );
        assert_eq!(std::fs::read(&bundled).expect("read"), b"second");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_demo_built_into_the_binary_is_a_recording_that_opens() {
        // Issue 45: an installed binary has no recordings/ beside it.
        let dir = temp_dir("built-in");
        let copy = demo_copy_of(BUNDLED, &dir).expect("copied");
        let source = crate::open::open_source(&copy, None).expect("opens");
        assert_eq!(source.events.len(), 45);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_bundled_demo_is_an_error_naming_it() {
        let dir = temp_dir("missing");
        let error = demo_copy(&dir.join("gone.rec"), &dir).expect_err("no demo");
        assert!(error.contains("no such file"), "{error}");
        assert!(error.ends_with("gone.rec"), "{error}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
