//! The system's file dialogs (the XDG desktop portal on Linux, through
//! `rfd`), and whether they can show at all.
//!
//! `rfd` answers `None` both when the user cancels and when no dialog could
//! show (no session bus, no portal, no `zenity`): it only logs why. A
//! dialog that could not show answers at once, a person never cancels that
//! fast, so an answer of `None` within [`QUICK_ANSWER`] is taken for "no
//! dialog here" (issue 13, point 8), and the app draws its own.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the system's dialog answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeAnswer {
    /// The user chose this file.
    Picked(PathBuf),
    /// The dialog showed and the user closed it.
    Cancelled,
    /// No dialog could show (no desktop portal): the app draws its own.
    Unavailable,
}

/// The system's file dialogs, behind a trait so that tests (and desktops
/// known to have none) can say what they answer.
pub trait NativeDialogs {
    /// A file to open, starting in `start_dir`.
    fn pick_file(&mut self, start_dir: Option<&Path>) -> NativeAnswer;
    /// A file to write, suggested as `suggested` (its folder and name).
    fn save_file(&mut self, suggested: &Path) -> NativeAnswer;
    /// A folder, starting in `start_dir` (View › Activity schemas…). None
    /// unless the dialogs say otherwise: the app's own then shows.
    fn pick_folder(&mut self, _start_dir: Option<&Path>) -> NativeAnswer {
        NativeAnswer::Unavailable
    }
}

/// No system dialog: the app always draws its own (tests, and desktops
/// without a portal).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoNativeDialogs;

impl NativeDialogs for NoNativeDialogs {
    fn pick_file(&mut self, _start_dir: Option<&Path>) -> NativeAnswer {
        NativeAnswer::Unavailable
    }

    fn save_file(&mut self, _suggested: &Path) -> NativeAnswer {
        NativeAnswer::Unavailable
    }
}

/// An answer of `None` sooner than this means no dialog showed.
pub const QUICK_ANSWER: Duration = Duration::from_millis(300);

/// The file types offered when opening.
const OPEN_EXTENSIONS: [&str; 9] = [
    "rec", "sqlite", "db", "jsonl", "ndjson", "json", "sse", "txt", "har",
];

/// The system's dialogs through `rfd`. Once one could not show, the app's
/// own is used for the rest of the run (asking again would only fail
/// again, after the same log lines).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemDialogs {
    unavailable: bool,
}

impl SystemDialogs {
    /// Whether a dialog was found not to show.
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }

    fn ask(&mut self, ask: impl FnOnce() -> Option<PathBuf>) -> NativeAnswer {
        if self.unavailable || !any_dialog_possible() {
            self.unavailable = true;
            return NativeAnswer::Unavailable;
        }
        let started = Instant::now();
        let answer = ask();
        answer_of(answer, started.elapsed(), &mut self.unavailable)
    }
}

impl NativeDialogs for SystemDialogs {
    fn pick_file(&mut self, start_dir: Option<&Path>) -> NativeAnswer {
        self.ask(|| {
            let mut dialog = rfd::FileDialog::new()
                .add_filter("Recordings and streams", &OPEN_EXTENSIONS)
                .add_filter("All files", &["*"]);
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            dialog.pick_file()
        })
    }

    fn save_file(&mut self, suggested: &Path) -> NativeAnswer {
        self.ask(|| {
            let mut dialog = rfd::FileDialog::new();
            if let Some(name) = suggested.file_name() {
                dialog = dialog.set_file_name(name.to_string_lossy());
            }
            if let Some(dir) = suggested.parent().filter(|d| d.is_dir()) {
                dialog = dialog.set_directory(dir);
            }
            dialog.save_file()
        })
    }

    fn pick_folder(&mut self, start_dir: Option<&Path>) -> NativeAnswer {
        self.ask(|| {
            let mut dialog = rfd::FileDialog::new();
            if let Some(dir) = start_dir {
                dialog = dialog.set_directory(dir);
            }
            dialog.pick_folder()
        })
    }
}

/// What `rfd`'s answer means, given how long it took; a quick `None`
/// marks the dialogs unavailable.
fn answer_of(answer: Option<PathBuf>, took: Duration, unavailable: &mut bool) -> NativeAnswer {
    match answer {
        Some(path) => NativeAnswer::Picked(path),
        None if took < QUICK_ANSWER => {
            *unavailable = true;
            NativeAnswer::Unavailable
        }
        None => NativeAnswer::Cancelled,
    }
}

/// Whether `rfd` could show anything: on Linux and the BSDs it needs a
/// session bus (for the portal) or `zenity` (its fallback). Elsewhere the
/// system always has a dialog.
fn any_dialog_possible() -> bool {
    if !cfg!(any(
        target_os = "linux",
        target_os = "freebsd",
        target_os = "dragonfly",
        target_os = "netbsd",
        target_os = "openbsd"
    )) {
        return true;
    }
    session_bus_present(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").as_deref(),
        std::env::var_os("XDG_RUNTIME_DIR").as_deref(),
    ) || program_on_path("zenity", std::env::var_os("PATH").as_deref())
}

/// A session bus is announced (`DBUS_SESSION_BUS_ADDRESS`) or has its
/// socket at the usual place (`$XDG_RUNTIME_DIR/bus`).
fn session_bus_present(
    address: Option<&std::ffi::OsStr>,
    runtime_dir: Option<&std::ffi::OsStr>,
) -> bool {
    address.is_some_and(|a| !a.is_empty())
        || runtime_dir.is_some_and(|dir| Path::new(dir).join("bus").exists())
}

fn program_on_path(name: &str, path: Option<&std::ffi::OsStr>) -> bool {
    path.is_some_and(|path| std::env::split_paths(path).any(|dir| dir.join(name).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_none_means_no_dialog_and_a_slow_one_a_cancel() {
        // Issue 13, point 8.
        let mut unavailable = false;
        assert_eq!(
            answer_of(None, Duration::from_secs(3), &mut unavailable),
            NativeAnswer::Cancelled
        );
        assert!(!unavailable);
        assert_eq!(
            answer_of(None, Duration::from_millis(5), &mut unavailable),
            NativeAnswer::Unavailable
        );
        assert!(unavailable);
        let picked = PathBuf::from("/tmp/x.rec");
        assert_eq!(
            answer_of(Some(picked.clone()), Duration::ZERO, &mut false),
            NativeAnswer::Picked(picked)
        );
    }

    #[test]
    fn without_a_bus_address_or_socket_there_is_no_session_bus() {
        let empty = std::env::temp_dir().join(format!("agui-replay-nobus-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&empty);
        assert!(!session_bus_present(None, None));
        assert!(!session_bus_present(None, Some(empty.as_os_str())));
        assert!(!session_bus_present(Some("".as_ref()), None));
        assert!(session_bus_present(
            Some("unix:path=/run/user/1000/bus".as_ref()),
            None
        ));
        std::fs::write(empty.join("bus"), b"").expect("write");
        assert!(session_bus_present(None, Some(empty.as_os_str())));
        let _ = std::fs::remove_dir_all(&empty);
    }

    #[test]
    fn a_program_is_found_on_the_path_only_where_it_is() {
        let dir = std::env::temp_dir().join(format!("agui-replay-path-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join("zenity"), b"").expect("write");
        assert!(program_on_path("zenity", Some(dir.as_os_str())));
        assert!(!program_on_path("kdialog", Some(dir.as_os_str())));
        assert!(!program_on_path("zenity", None));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
