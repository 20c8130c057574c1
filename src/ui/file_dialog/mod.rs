//! Choosing a file (File › Open…, Ctrl+O, Export › Browse…): the system's
//! dialog where one shows ([`native`]), else the app's own, drawn in egui
//! ([`path_dialog`]), so that a desktop without an XDG portal can still
//! open a file (issue 13, point 8).
//!
//! `egui-file-dialog` was the crate to use, but no release depends on egui
//! 0.37 (0.15 is on 0.36), hence the small dialog here.

pub mod native;
pub mod path_dialog;

use std::path::{Path, PathBuf};

pub use native::{NativeAnswer, NativeDialogs, NoNativeDialogs, SystemDialogs};
pub use path_dialog::{PathDialog, Purpose};

/// The file dialogs of the app: which to show, and the app's own while it
/// shows.
pub struct FilePicker {
    native: Box<dyn NativeDialogs>,
    fallback: Option<PathDialog>,
}

impl Default for FilePicker {
    /// The system's dialogs, and the app's own where they do not show.
    fn default() -> Self {
        Self::new(Box::new(SystemDialogs::default()))
    }
}

impl FilePicker {
    /// Asks `native` first (tests give [`NoNativeDialogs`], or their own).
    pub fn new(native: Box<dyn NativeDialogs>) -> Self {
        Self {
            native,
            fallback: None,
        }
    }

    /// The app's own dialogs only.
    pub fn without_native() -> Self {
        Self::new(Box::new(NoNativeDialogs))
    }

    /// The app's own dialog, while it shows.
    pub fn fallback(&self) -> Option<&PathDialog> {
        self.fallback.as_ref()
    }

    /// A file to open, starting in `start_dir`: the one the system's
    /// dialog gave, or `None` (cancelled, or the app's dialog now shows and
    /// [`Self::ui`] gives its answer).
    pub fn open_file(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        self.existing_file(Purpose::Open, start_dir)
    }

    /// A file to compare with the open one (File › Compare with…), as
    /// [`Self::open_file`].
    pub fn compare_file(&mut self, start_dir: Option<&Path>) -> Option<PathBuf> {
        self.existing_file(Purpose::Compare, start_dir)
    }

    fn existing_file(&mut self, purpose: Purpose, start_dir: Option<&Path>) -> Option<PathBuf> {
        match self.native.pick_file(start_dir) {
            NativeAnswer::Picked(path) => Some(path),
            NativeAnswer::Cancelled => None,
            NativeAnswer::Unavailable => {
                let mut text = match start_dir {
                    Some(dir) => dir.display().to_string(),
                    None => String::new(),
                };
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                self.fallback = Some(PathDialog::new(purpose, text));
                None
            }
        }
    }

    /// A folder, for View › Activity schemas… or Infer from this
    /// recording… (issue 42), as [`Self::open_file`].
    pub fn pick_folder(&mut self, purpose: Purpose, start_dir: Option<&Path>) -> Option<PathBuf> {
        match self.native.pick_folder(start_dir) {
            NativeAnswer::Picked(path) => Some(path),
            NativeAnswer::Cancelled => None,
            NativeAnswer::Unavailable => {
                let mut text = start_dir
                    .map(|d| d.display().to_string())
                    .unwrap_or_default();
                if !text.is_empty() && !text.ends_with('/') {
                    text.push('/');
                }
                self.fallback = Some(PathDialog::new(purpose, text));
                None
            }
        }
    }

    /// A file to write an export to, suggested as `suggested`; as
    /// [`Self::open_file`].
    pub fn save_file(&mut self, suggested: &Path) -> Option<PathBuf> {
        match self.native.save_file(suggested) {
            NativeAnswer::Picked(path) => Some(path),
            NativeAnswer::Cancelled => None,
            NativeAnswer::Unavailable => {
                let text = suggested.display().to_string();
                self.fallback = Some(PathDialog::new(Purpose::Export, text));
                None
            }
        }
    }

    /// Draws the app's dialog if it shows; the file chosen in it, and what
    /// for.
    pub fn ui(&mut self, ctx: &egui::Context) -> Option<(Purpose, PathBuf)> {
        let dialog = self.fallback.as_mut()?;
        let response = dialog.ui(ctx);
        let purpose = dialog.purpose();
        if response.chosen.is_some() || response.cancelled {
            self.fallback = None;
        }
        response.chosen.map(|path| (purpose, path))
    }
}
