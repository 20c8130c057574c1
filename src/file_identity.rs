//! Whether two paths name one file: what keeps a command that writes a
//! file (an export, an import into a recording) from replacing the file it
//! reads.

use std::path::Path;

/// Whether two paths name one existing file (after resolving links and
/// relative parts); `false` when either does not exist.
pub fn is_same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
