//! Replacing a file safely: the new content is written into a file beside
//! it, renamed over it once complete, so that a failure at any step leaves
//! the old file as it was. Exports and imports both write this way.

use std::path::{Path, PathBuf};

/// The files SQLite keeps beside a database.
pub const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Why a file could not be replaced.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError<E: std::error::Error + 'static> {
    /// Writing the new content failed (the old file is untouched).
    #[error(transparent)]
    Write(E),
    /// The new content could not take the old file's place (the old file is
    /// untouched).
    #[error("cannot replace ({}): {path}", crate::error::io_cause(source))]
    Rename {
        /// The file to replace.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// `path` with `suffix` appended to its name (`x.rec` → `x.rec-wal`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// A name for the file written before it replaces `out`: hidden, in the
/// same directory (so the rename stays on one file system).
pub fn temporary_beside(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    // The process and a counter: two writes to one `out` from one process
    // (the app's threads) never share a partial file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    out.with_file_name(format!(".{name}.{}-{n}.partial", std::process::id()))
}

/// Removes a file and the SQLite files beside it.
pub fn remove_with_sidecars(path: &Path) {
    let _ = std::fs::remove_file(path);
    for suffix in SIDECARS {
        let _ = std::fs::remove_file(with_suffix(path, suffix));
    }
}

/// The temporary files being written now, removed by
/// [`remove_partial_files`] when the process is stopped (issue 38).
static PARTIALS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes every temporary file [`replace_file`] is writing now, with its
/// sidecars: what a command stopped by a signal (Ctrl+C, SIGTERM) calls
/// before it exits, so that no `.partial` file is left behind (issue 38).
pub fn remove_partial_files() {
    let partials = PARTIALS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for partial in partials.iter() {
        remove_with_sidecars(partial);
    }
}

/// A temporary file being written: listed for [`remove_partial_files`],
/// and removed when dropped unless it took its place (a panic while it is
/// written leaves nothing behind either).
struct Partial(PathBuf);

impl Partial {
    fn new(path: PathBuf) -> Self {
        PARTIALS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(path.clone());
        Self(path)
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        let mut partials = PARTIALS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        partials.retain(|p| *p != self.0);
        // Renamed into place already when it succeeded: then this finds
        // nothing to remove.
        remove_with_sidecars(&self.0);
    }
}

/// Writes `out` through `write`, which is given the temporary file beside
/// `out` to write to: once it succeeds, the temporary file is renamed over
/// `out` (which a recording there leaves with its old `-wal`, `-shm` and
/// `-journal`); if it fails, the temporary file is removed and `out` is as
/// it was.
pub fn replace_file<E: std::error::Error + 'static>(
    out: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), ReplaceError<E>> {
    let temporary = temporary_beside(out);
    remove_with_sidecars(&temporary);
    let _partial = Partial::new(temporary.clone());
    if let Err(error) = write(&temporary) {
        remove_with_sidecars(&temporary);
        return Err(ReplaceError::Write(error));
    }
    // The files SQLite keeps beside a database at `out` belong to the file
    // replaced: set aside, put back if the rename fails.
    let set_aside: Vec<(PathBuf, PathBuf)> = SIDECARS
        .iter()
        .filter_map(|suffix| {
            let sidecar = with_suffix(out, suffix);
            let aside = with_suffix(&temporary, &format!(".replaced{suffix}"));
            std::fs::rename(&sidecar, &aside)
                .ok()
                .map(|()| (sidecar, aside))
        })
        .collect();
    if let Err(source) = std::fs::rename(&temporary, out) {
        for (sidecar, aside) in &set_aside {
            let _ = std::fs::rename(aside, sidecar);
        }
        remove_with_sidecars(&temporary);
        return Err(ReplaceError::Rename {
            path: out.to_owned(),
            source,
        });
    }
    for (_, aside) in &set_aside {
        let _ = std::fs::remove_file(aside);
    }
    Ok(())
}
