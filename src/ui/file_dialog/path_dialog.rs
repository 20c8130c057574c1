//! The app's own file dialog, for desktops where the system shows none (no
//! XDG desktop portal): a path field that completes from the folder it
//! names (Tab takes the highlighted name), the folder's listing to click
//! through, Enter to open, and the reason shown when the path will not do.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::{Key, RichText};

/// What the chosen file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A stream or recording to open (it must exist).
    Open,
    /// Where an export is written (its folder must exist).
    Export,
    /// A stream or recording to compare with the open one (File › Compare
    /// with…; it must exist).
    Compare,
    /// A folder of activity schemas (View › Activity schemas…; it must
    /// exist, issue 42).
    SchemaFolder,
    /// The folder to write inferred schemas into (View › Infer from this
    /// recording…; it, or its parent, must exist).
    InferFolder,
}

impl Purpose {
    fn title(self) -> &'static str {
        match self {
            Self::Open => "Open a recording or stream",
            Self::Export => "Export to",
            Self::Compare => "Compare with a recording or stream",
            Self::SchemaFolder => "Check against the activity schemas in",
            Self::InferFolder => "Write the inferred schemas to",
        }
    }

    fn action(self) -> &'static str {
        match self {
            Self::Open => "Open",
            Self::Export => "Choose",
            Self::Compare => "Compare",
            Self::SchemaFolder | Self::InferFolder => "Choose this folder",
        }
    }
}

/// One name in a folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The file's name.
    pub name: String,
    /// Whether it is a folder (or a link to one).
    pub is_dir: bool,
}

/// Whether a file is worth listing: not SQLite's companions of a recording
/// being written (`-wal`, `-shm`, `-journal`) nor an image, which no
/// purpose of the dialog can use (issue 43, point 4). Folders always are.
pub fn is_listed(entry: &Entry) -> bool {
    const IMAGES: &[&str] = &["png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "ico"];
    if entry.is_dir {
        return true;
    }
    let name = entry.name.to_ascii_lowercase();
    let companion = ["-wal", "-shm", "-journal"]
        .iter()
        .any(|suffix| name.ends_with(suffix));
    let image = Path::new(&name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| IMAGES.contains(&e));
    !companion && !image
}

/// The names of a folder worth listing ([`is_listed`]), folders first,
/// then by name.
pub fn list_dir(dir: &Path) -> Result<Vec<Entry>, String> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {}", crate::error::io_cause(&e), dir.display()))?;
    let mut entries: Vec<Entry> = read
        .filter_map(Result::ok)
        .map(|entry| Entry {
            name: entry.file_name().to_string_lossy().into_owned(),
            // Follows links: a link to a folder is entered like one.
            is_dir: entry.path().is_dir(),
        })
        .filter(is_listed)
        .collect();
    entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
    Ok(entries)
}

/// The typed text split at its last `/`: the folder part (with its `/`,
/// empty for a bare name) and the start of a name in it.
pub fn split_typed(text: &str) -> (&str, &str) {
    match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    }
}

/// The path typed text names: `~` and `~/…` are the home folder.
pub fn expand(text: &str, home: Option<&Path>) -> PathBuf {
    match (text.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home.to_owned(),
        (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
        _ => PathBuf::from(text),
    }
}

/// The folder whose names complete `text` (the working folder for a bare
/// name).
pub fn folder_of(text: &str, home: Option<&Path>) -> PathBuf {
    match split_typed(text).0 {
        "" => PathBuf::from("."),
        folder => expand(folder, home),
    }
}

/// The names of `entries` that start with `prefix` (hidden ones only when
/// the prefix starts with a dot), in the listing's order.
pub fn completions<'a>(entries: &'a [Entry], prefix: &str) -> Vec<&'a Entry> {
    entries
        .iter()
        .filter(|e| {
            e.name.starts_with(prefix) && (prefix.starts_with('.') || !e.name.starts_with('.'))
        })
        .collect()
}

/// What Enter does with the typed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accept {
    /// The file chosen.
    File(PathBuf),
    /// A folder was typed: its listing shows (the text becomes this).
    EnterFolder(String),
}

/// What the typed text means for `purpose`, or why it will not do.
pub fn accept(purpose: Purpose, text: &str, home: Option<&Path>) -> Result<Accept, String> {
    if text.trim().is_empty() {
        return Err("type the path of a file".to_owned());
    }
    let path = expand(text, home);
    // A folder is the answer itself when a folder is asked for (issue 42):
    // a click in the listing enters one, Enter chooses it.
    if matches!(purpose, Purpose::SchemaFolder | Purpose::InferFolder) && path.is_dir() {
        return Ok(Accept::File(path));
    }
    if path.is_dir() {
        let mut folder = text.to_owned();
        if !folder.ends_with('/') {
            folder.push('/');
        }
        return Ok(Accept::EnterFolder(folder));
    }
    match purpose {
        Purpose::Open | Purpose::Compare => {
            if path.exists() {
                Ok(Accept::File(path))
            } else {
                Err(format!("no such file or directory: {}", path.display()))
            }
        }
        Purpose::SchemaFolder => Err(format!("no such folder: {}", path.display())),
        Purpose::Export | Purpose::InferFolder => {
            let parent = match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
                _ => PathBuf::from("."),
            };
            if parent.is_dir() {
                Ok(Accept::File(path))
            } else {
                Err(format!("no such folder: {}", parent.display()))
            }
        }
    }
}

/// How long a folder's listing is kept before it is read again.
const LISTING_FOR: Duration = Duration::from_secs(2);

/// The most names the listing draws (the field completes from them all).
const MAX_LISTED: usize = 500;

struct Listing {
    folder: PathBuf,
    read_at: Instant,
    entries: Result<Vec<Entry>, String>,
}

/// The dialog's state while it shows.
pub struct PathDialog {
    purpose: Purpose,
    text: String,
    error: Option<String>,
    listing: Option<Listing>,
    home: Option<PathBuf>,
    focus: bool,
}

/// What the dialog did this frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathDialogResponse {
    /// The file chosen (the dialog is done).
    pub chosen: Option<PathBuf>,
    /// The dialog was closed without a choice.
    pub cancelled: bool,
}

impl PathDialog {
    /// A dialog for `purpose` starting with `text` (a folder ending in `/`,
    /// or a path).
    pub fn new(purpose: Purpose, text: String) -> Self {
        Self {
            purpose,
            text,
            error: None,
            listing: None,
            home: std::env::var_os("HOME").map(PathBuf::from),
            focus: true,
        }
    }

    /// What the file is for.
    pub fn purpose(&self) -> Purpose {
        self.purpose
    }

    /// The text typed.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why the last Enter did not choose a file, if it did not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Enter (or the Open button): the file, or the folder entered, or the
    /// reason shown.
    pub fn submit(&mut self) -> Option<PathBuf> {
        match accept(self.purpose, &self.text, self.home.as_deref()) {
            Ok(Accept::File(path)) => {
                self.error = None;
                Some(path)
            }
            Ok(Accept::EnterFolder(folder)) => {
                self.error = None;
                self.text = folder;
                self.focus = true;
                None
            }
            Err(why) => {
                self.error = Some(why);
                None
            }
        }
    }

    /// The listing of the folder the text names, read again when stale.
    fn refresh_listing(&mut self) {
        let folder = folder_of(&self.text, self.home.as_deref());
        let fresh = self
            .listing
            .as_ref()
            .is_some_and(|l| l.folder == folder && l.read_at.elapsed() < LISTING_FOR);
        if !fresh {
            self.listing = Some(Listing {
                entries: list_dir(&folder),
                folder,
                read_at: Instant::now(),
            });
        }
    }

    /// Draws the dialog (modal) and says what was done.
    pub fn ui(&mut self, ctx: &egui::Context) -> PathDialogResponse {
        let mut response = PathDialogResponse::default();
        self.refresh_listing();
        let modal = egui::Modal::new(egui::Id::unique("path-dialog")).show(ctx, |ui| {
            ui.set_width(600.0_f32.min(ctx.content_rect().width() - 40.0));
            ui.heading(self.purpose.title());
            ui.label(
                RichText::new(
                    "No system file dialog here (no desktop portal): type a path. \
                     Tab completes, Enter chooses",
                )
                .weak(),
            );
            ui.add_space(4.0);
            let chosen = self.field_ui(ui);
            if let Some(error) = &self.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            ui.add_space(4.0);
            let picked = self.listing_ui(ui);
            ui.add_space(4.0);
            let mut cancelled = false;
            let mut clicked = false;
            ui.horizontal(|ui| {
                clicked = ui.button(self.purpose.action()).clicked();
                cancelled = ui.button("Cancel").clicked();
            });
            (chosen || picked || clicked, cancelled)
        });
        let (submit, cancelled) = modal.inner;
        if submit {
            response.chosen = self.submit();
        }
        if response.chosen.is_none() && (cancelled || modal.should_close()) {
            response.cancelled = true;
        }
        response
    }

    /// The path field, completing names of the folder it names; returns
    /// whether Enter was pressed in it.
    fn field_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let label = ui.label("Path");
        let Self {
            text,
            listing,
            home,
            focus,
            error,
            ..
        } = self;
        let id = ui.make_persistent_id("path-dialog-field");
        let before = text.clone();
        let output = egui::CompletionPopup::new(id)
            .word_boundary(|c| c == '/')
            .accept_keys([Key::Tab])
            .align(egui::RectAlign::BOTTOM_START)
            .show(
                ui,
                // Tab with nothing to complete keeps the keyboard in the
                // field: it moved to the listing's "../" (issue 43, point 4).
                egui::TextEdit::singleline(text)
                    .desired_width(f32::INFINITY)
                    .lock_focus(true),
                |query| {
                    // The names of the folder typed so far (after this
                    // frame's typing: the listing may be of the folder
                    // before, then it is read again).
                    let folder = folder_of(query.text, home.as_deref());
                    if listing.as_ref().is_none_or(|l| l.folder != folder) {
                        *listing = Some(Listing {
                            entries: list_dir(&folder),
                            folder,
                            read_at: Instant::now(),
                        });
                    }
                    let Some(Ok(entries)) = listing.as_ref().map(|l| &l.entries) else {
                        return Vec::new();
                    };
                    // Nothing typed of a name: the listing shows them all.
                    if query.word.is_empty() {
                        return Vec::new();
                    }
                    let matching = completions(entries, query.word);
                    // A name typed whole, and alone, needs no popup.
                    if matching.len() == 1 && matching[0].name == query.word {
                        return Vec::new();
                    }
                    matching
                        .into_iter()
                        .take(MAX_LISTED)
                        .map(|e| {
                            if e.is_dir {
                                egui::Suggestion::new(format!("{}/", e.name))
                            } else {
                                egui::Suggestion::new(e.name.clone())
                            }
                        })
                        .collect()
                },
            );
        let field = output.text_edit.response.response.labelled_by(label.id);
        if *focus {
            field.request_focus();
            *focus = false;
        }
        if *text != before {
            *error = None;
        }
        field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter))
    }

    /// The folder's names: a click on a folder enters it, on a file takes
    /// its name, a double click chooses it. Returns whether one was chosen.
    fn listing_ui(&mut self, ui: &mut egui::Ui) -> bool {
        let Some(listing) = &self.listing else {
            return false;
        };
        ui.label(RichText::new(format!("In {}", listing.folder.display())).weak());
        let (folder_text, _) = split_typed(&self.text);
        let folder_text = folder_text.to_owned();
        let mut new_text = None;
        let mut chosen = false;
        egui::ScrollArea::vertical()
            .max_height(260.0)
            .auto_shrink([false, true])
            .show(ui, |ui| match &listing.entries {
                Err(error) => {
                    ui.colored_label(ui.visuals().warn_fg_color, error);
                }
                Ok(entries) => {
                    if ui.selectable_label(false, "../").clicked() {
                        new_text = Some(parent_text(&folder_text));
                    }
                    let shown = entries.iter().filter(|e| !e.name.starts_with('.'));
                    for entry in shown.clone().take(MAX_LISTED) {
                        let name = if entry.is_dir {
                            format!("{}/", entry.name)
                        } else {
                            entry.name.clone()
                        };
                        let row = ui.selectable_label(false, &name);
                        if row.double_clicked() && !entry.is_dir {
                            new_text = Some(format!("{folder_text}{name}"));
                            chosen = true;
                        } else if row.clicked() {
                            new_text = Some(format!("{folder_text}{name}"));
                        }
                    }
                    let count = shown.count();
                    if count > MAX_LISTED {
                        ui.weak(format!("and {} more: type to narrow", count - MAX_LISTED));
                    }
                }
            });
        if let Some(text) = new_text {
            self.text = text;
            self.error = None;
            self.focus = true;
        }
        chosen
    }
}

/// The text of the folder above the one typed (`a/b/` gives `a/`; the
/// working folder gives `../`).
fn parent_text(folder_text: &str) -> String {
    let trimmed = folder_text.trim_end_matches('/');
    if trimmed.is_empty() && folder_text.starts_with('/') {
        return "/".to_owned();
    }
    let last = trimmed.rsplit('/').next().unwrap_or("");
    if trimmed.is_empty() || last == ".." || last == "." || last == "~" {
        return format!("{folder_text}../");
    }
    match trimmed.rfind('/') {
        Some(i) => trimmed[..=i].to_owned(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(names: &[(&str, bool)]) -> Vec<Entry> {
        names
            .iter()
            .map(|&(name, is_dir)| Entry {
                name: name.to_owned(),
                is_dir,
            })
            .collect()
    }

    #[test]
    fn typed_text_splits_into_folder_and_name() {
        assert_eq!(split_typed("/tmp/de"), ("/tmp/", "de"));
        assert_eq!(split_typed("/tmp/"), ("/tmp/", ""));
        assert_eq!(split_typed("demo"), ("", "demo"));
        assert_eq!(folder_of("demo", None), PathBuf::from("."));
        let home = Path::new("/home/u");
        assert_eq!(
            folder_of("~/rec/x", Some(home)),
            PathBuf::from("/home/u/rec/")
        );
        assert_eq!(expand("~", Some(home)), PathBuf::from("/home/u"));
        assert_eq!(expand("~x", Some(home)), PathBuf::from("~x"));
    }

    #[test]
    fn completions_hide_dot_files_unless_asked() {
        let listing = entries(&[
            ("recs", true),
            (".git", true),
            ("demo.rec", false),
            ("d2", false),
        ]);
        let names = |prefix| -> Vec<&str> {
            completions(&listing, prefix)
                .into_iter()
                .map(|e| e.name.as_str())
                .collect()
        };
        assert_eq!(names("d"), ["demo.rec", "d2"]);
        assert_eq!(names(""), ["recs", "demo.rec", "d2"]);
        assert_eq!(names(".g"), [".git"]);
        assert!(names("x").is_empty());
    }

    #[test]
    fn enter_needs_an_existing_file_to_open_and_a_folder_to_export_to() {
        let dir = std::env::temp_dir().join(format!("agui-replay-pathdlg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("a.jsonl");
        std::fs::write(&file, b"{}\n").expect("write");
        let text = |p: &Path| p.display().to_string();
        assert_eq!(
            accept(Purpose::Open, &text(&file), None),
            Ok(Accept::File(file.clone()))
        );
        let missing = dir.join("missing.rec");
        let error = accept(Purpose::Open, &text(&missing), None).expect_err("missing");
        assert!(error.starts_with("no such file or directory"), "{error}");
        assert!(error.ends_with("missing.rec"), "{error}");
        assert_eq!(
            accept(Purpose::Open, &text(&dir), None),
            Ok(Accept::EnterFolder(format!("{}/", text(&dir))))
        );
        assert_eq!(
            accept(Purpose::Export, &text(&missing), None),
            Ok(Accept::File(missing.clone()))
        );
        let nowhere = dir.join("no-folder").join("x.rec");
        let error = accept(Purpose::Export, &text(&nowhere), None).expect_err("no folder");
        assert!(error.starts_with("no such folder"), "{error}");
        assert!(accept(Purpose::Open, "  ", None).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_recordings_companions_and_images_are_not_listed() {
        let dir = std::env::temp_dir().join(format!("agui-replay-listed-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("shots.png")).expect("dir");
        for name in [
            "demo.rec",
            "demo.rec-wal",
            "demo.rec-shm",
            "demo.rec-journal",
            "screen.PNG",
            "photo.jpg",
            "trace.jsonl",
        ] {
            std::fs::write(dir.join(name), b"x").expect("write");
        }
        let names: Vec<String> = list_dir(&dir)
            .expect("listed")
            .into_iter()
            .map(|e| e.name)
            .collect();
        // A folder named like an image is still a folder to enter.
        assert_eq!(names, ["shots.png", "demo.rec", "trace.jsonl"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_parent_of_a_typed_folder() {
        assert_eq!(parent_text("/tmp/a/"), "/tmp/");
        assert_eq!(parent_text("/tmp/"), "/");
        assert_eq!(parent_text("/"), "/");
        assert_eq!(parent_text("a/"), "");
        assert_eq!(parent_text(""), "../");
        assert_eq!(parent_text("../"), "../../");
        assert_eq!(parent_text("~/"), "~/../");
    }
}
