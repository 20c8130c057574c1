//! How a recording is opened for reading so that opening creates and
//! changes nothing beside it (issue 38), whatever SQLite left there: no new
//! `-shm`, no rewritten `-shm`, no checkpointed `-wal`, on writable folders
//! and read-only media alike, and every commit in a `-wal` read.
//!
//! | beside the file          | how it is read                                  |
//! |--------------------------|-------------------------------------------------|
//! | nothing (or no `-wal`)   | the file itself, immutable                      |
//! | `-wal` and `-shm`        | the file, its log read through a read-only index |
//! | `-wal` without `-shm`    | a private copy of the file and its log          |
//!
//! A rollback-journal file (an import) is read directly, read-only: SQLite
//! needs nothing beside it.
//!
//! A live writer (`record`, a recording being followed) always has both
//! its `-wal` and its `-shm`: the second row. With `readonly_shm`, SQLite
//! opens the `-shm` read-only: when a writer holds it, it reads through the
//! writer's index (and sees each new commit); when none does (a killed
//! writer's leftovers), it builds a private index in memory from the
//! `-wal`, instead of taking the `-shm` over and rewriting it. A `-wal`
//! without a `-shm` has no writer (SQLite makes the `-shm` before writing):
//! reading it in place would create the `-shm`, so the file and its log are
//! copied into a folder of the temporary directory, read there, and removed
//! when the last reader of the copy is dropped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use rusqlite::{Connection, OpenFlags};

/// The size of a WAL file's header: a shorter `-wal` holds no commit.
const WAL_HEADER_BYTES: u64 = 32;

/// How a recording's connections read it.
#[derive(Clone, Debug)]
pub(super) enum Access {
    /// The file itself, read-only: a rollback-journal file.
    Direct,
    /// The file alone, immutable: a WAL-mode file without a log to read.
    /// SQLite takes no lock and creates nothing; the connection does not
    /// see later changes.
    Immutable,
    /// The file and its `-wal` through its existing `-shm`, opened
    /// read-only (`readonly_shm`).
    ReadOnlyIndex,
    /// A private copy of the file and its `-wal`, folded into one file.
    Copy(Arc<PrivateCopy>),
}

impl Access {
    /// Whether a connection opened this way sees what another connection
    /// commits to the file later without being opened again.
    pub(super) fn follows_changes(&self) -> bool {
        matches!(self, Self::Direct)
    }
}

/// Why a recording could not be opened for reading.
#[derive(Debug)]
pub(super) enum OpenError {
    /// SQLite refused.
    Sqlite(rusqlite::Error),
    /// The file has commits in a `-wal` without a `-shm`, and the private
    /// copy to read them from could not be made.
    Copy {
        /// The log that cannot be read in place.
        log: PathBuf,
        /// Why the copy failed, in words.
        reason: String,
    },
}

impl From<rusqlite::Error> for OpenError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Sqlite(error)
    }
}

impl OpenError {
    /// As an SQLite error (`SQLITE_CANTOPEN` with the reason), for callers
    /// that report only those.
    pub(super) fn into_sqlite(self) -> rusqlite::Error {
        match self {
            Self::Sqlite(error) => error,
            Self::Copy { log, reason } => rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some(format!(
                    "cannot read the log {} without a copy: {reason}",
                    log.display()
                )),
            ),
        }
    }
}

/// A file's size and modification time, to notice a change.
type Stamp = Option<(u64, Option<std::time::SystemTime>)>;

fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), m.modified().ok()))
}

/// What is on disk for a recording: the file's and its log's stamps, and
/// whether its `-shm` is there. Another value later means a writer came,
/// wrote, or went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fingerprint {
    file: Stamp,
    log: Stamp,
    index: bool,
}

impl Fingerprint {
    /// Whether both a `-wal` and a `-shm` are there.
    pub(super) fn has_log_and_index(&self) -> bool {
        self.log.is_some() && self.index
    }

    /// What is on disk now for `path`.
    pub(super) fn of(path: &Path) -> Self {
        Self {
            file: stamp(path),
            log: stamp(&beside(path, "-wal")),
            index: beside(path, "-shm").exists(),
        }
    }
}

/// A file beside `path`: `path` with `suffix` appended (`-wal`, `-journal`).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// An SQLite `file:` URI naming `path`, with `query` (`immutable=1`).
fn file_uri(path: &Path, query: &str) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file:");
    for byte in bytes {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.push('?');
    uri.push_str(query);
    uri
}

const READ_ONLY: OpenFlags = OpenFlags::SQLITE_OPEN_READ_ONLY
    .union(OpenFlags::SQLITE_OPEN_URI)
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX);

/// Opens a recording read-only, creating and changing nothing beside it
/// (see the module's table); returns the connection and how it reads.
///
/// `wal_mode` is what the file's header says. A file in WAL mode whose
/// `-wal` holds no commit needs nothing but itself.
pub(super) fn open_connection(
    path: &Path,
    wal_mode: bool,
) -> Result<(Connection, Access), OpenError> {
    open_connection_in(path, wal_mode, &std::env::temp_dir())
}

/// [`open_connection`], a private copy made under `temp` (tests choose it).
pub(super) fn open_connection_in(
    path: &Path,
    wal_mode: bool,
    temp: &Path,
) -> Result<(Connection, Access), OpenError> {
    let log = beside(path, "-wal");
    let log_bytes = std::fs::metadata(&log).ok().map(|m| m.len());
    if !wal_mode && log_bytes.is_none() {
        let conn = Connection::open_with_flags(path, READ_ONLY)?;
        return Ok((conn, Access::Direct));
    }
    let index = beside(path, "-shm").exists();
    match log_bytes {
        Some(_) if index => {
            let conn = Connection::open_with_flags(file_uri(path, "readonly_shm=1"), READ_ONLY)?;
            Ok((conn, Access::ReadOnlyIndex))
        }
        Some(bytes) if bytes >= WAL_HEADER_BYTES => {
            let copy = PrivateCopy::of(path, temp).map_err(|reason| OpenError::Copy {
                log: log.clone(),
                reason,
            })?;
            let conn = copy.connect()?;
            Ok((conn, Access::Copy(copy)))
        }
        _ => {
            let conn = Connection::open_with_flags(file_uri(path, "immutable=1"), READ_ONLY)?;
            Ok((conn, Access::Immutable))
        }
    }
}

/// A private copy of a recording and its `-wal`, made in a folder of its
/// own under the temporary directory and folded into one file there; the
/// folder is removed when the last holder drops it. Every reader of one
/// recording in this process shares one copy while it is held.
#[derive(Debug)]
pub(super) struct PrivateCopy {
    folder: PathBuf,
    file: PathBuf,
}

/// The private copies held now, by the file they copy and its fingerprint.
static COPIES: Mutex<Vec<(PathBuf, Fingerprint, Weak<PrivateCopy>)>> = Mutex::new(Vec::new());

impl PrivateCopy {
    /// The copy of `path` (and its `-wal`) as it is now: one held already,
    /// or a new one under `temp`.
    fn of(path: &Path, temp: &Path) -> Result<Arc<Self>, String> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let fingerprint = Fingerprint::of(path);
        let mut copies = COPIES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        copies.retain(|(_, _, copy)| copy.strong_count() > 0);
        if let Some(copy) = copies
            .iter()
            .find(|(file, seen, _)| *file == key && *seen == fingerprint)
            .and_then(|(_, _, copy)| copy.upgrade())
        {
            return Ok(copy);
        }
        let copy = Arc::new(Self::make(path, temp)?);
        copies.push((key, fingerprint, Arc::downgrade(&copy)));
        Ok(copy)
    }

    fn make(path: &Path, temp: &Path) -> Result<Self, String> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let folder = temp.join(format!("agui-replay-open-{}-{n}", std::process::id()));
        std::fs::create_dir(&folder).map_err(|e| {
            format!(
                "cannot make {} ({})",
                folder.display(),
                crate::error::io_cause(&e)
            )
        })?;
        // Removed on any failure below.
        let copy = Self {
            file: folder.join(path.file_name().unwrap_or("recording.rec".as_ref())),
            folder,
        };
        let copied = |from: &Path, to: &Path| {
            std::fs::copy(from, to).map_err(|e| {
                format!(
                    "cannot copy {} to {} ({})",
                    from.display(),
                    to.display(),
                    crate::error::io_cause(&e)
                )
            })
        };
        copied(path, &copy.file)?;
        copied(&beside(path, "-wal"), &beside(&copy.file, "-wal"))?;
        // Folded into one file: its readers then need nothing beside it.
        let fold = || -> rusqlite::Result<()> {
            let conn = Connection::open_with_flags(
                &copy.file,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            conn.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))?;
            conn.close().map_err(|(_, e)| e)
        };
        fold().map_err(|e| format!("cannot read the copy's log ({e})"))?;
        Ok(copy)
    }

    /// A new read-only connection to the copy.
    pub(super) fn connect(&self) -> rusqlite::Result<Connection> {
        Connection::open_with_flags(
            &self.file,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A new connection reading the recording at `path` as `access` reads it:
/// the same private copy, or the file opened afresh.
pub(super) fn reconnect(path: &Path, access: &Access) -> Result<(Connection, Access), OpenError> {
    match access {
        Access::Copy(copy) => Ok((copy.connect()?, access.clone())),
        _ => open_connection(path, super::reader::file_says_wal(path)),
    }
}
