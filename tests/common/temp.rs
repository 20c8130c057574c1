//! Temporary files and folders, unique to the process and the call and
//! removed when dropped (with a recording's SQLite sidecars).

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::events::jsonl;
use super::files::p;

/// The sidecar suffixes SQLite may leave next to a recording.
pub const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// The prefix of every temporary name of this process; snapshots redact it.
pub fn temp_prefix() -> String {
    format!("agui-replay-{}-", std::process::id())
}

/// A name under the temp dir no other call of this process gets.
fn unique(label: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("{}{n}-{label}", temp_prefix()))
}

/// `path` with `suffix` appended to its file name (`x.rec-wal`).
pub fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Fails if SQLite left a sidecar next to `path`.
pub fn assert_no_sidecars(path: &Path, when: &str) {
    for suffix in SIDECARS {
        let side = sidecar(path, suffix);
        assert!(
            !side.exists(),
            "{} is left next to the finished recording {when}",
            side.display()
        );
    }
}

/// A file path under the temp dir that does not exist until a test writes
/// it; the file and its SQLite sidecars are removed when dropped.
pub struct TempPath(PathBuf);

impl TempPath {
    /// A fresh path ending in `name`, labelled by `test`.
    pub fn new(test: &str, name: &str) -> Self {
        let temp = Self(unique(&format!("{test}-{name}")));
        temp.remove();
        temp
    }

    /// A fresh file holding `bytes`.
    pub fn with_bytes(test: &str, name: &str, bytes: &[u8]) -> Self {
        let temp = Self::new(test, name);
        std::fs::write(&temp.0, bytes).expect("write temp file");
        temp
    }

    /// A fresh file of `events`, one JSON line each.
    pub fn jsonl(test: &str, name: &str, events: &[Value]) -> Self {
        Self::with_bytes(test, name, jsonl(events).as_bytes())
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path as an argument of the binary.
    pub fn s(&self) -> &str {
        p(&self.0)
    }

    /// The file's bytes.
    pub fn read(&self) -> Vec<u8> {
        std::fs::read(&self.0).unwrap_or_else(|e| panic!("cannot read {}: {e}", self.0.display()))
    }

    /// Removes the file and its sidecars.
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.0);
        for suffix in SIDECARS {
            let _ = std::fs::remove_file(sidecar(&self.0, suffix));
        }
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        self.remove();
    }
}

/// A fresh, empty folder under the temp dir, removed (made writable first)
/// when dropped. It derefs to its path.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A fresh folder labelled `name`.
    pub fn new(name: &str) -> Self {
        let dir = unique(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temp dir");
        Self(dir)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The folder as an argument of the binary.
    pub fn s(&self) -> &str {
        p(&self.0)
    }

    /// Writes `bytes` to `name` in the folder and returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).expect("writes");
        path
    }

    /// Creates the folder `name` in it and returns its path.
    pub fn subdir(&self, name: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(&path).expect("create a folder");
        path
    }

    /// The names of the files in it, sorted.
    pub fn listing(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("list the temp dir")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }
}

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = make_writable(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Gives `dir` back its owner's write permission (a test may take it away).
pub fn make_writable(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}
