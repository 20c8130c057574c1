//! Every action the app offers, in one table (issue 43, point 1): its
//! name, its keys (or the pointer gesture that does it), the menu it sits
//! in and its help line. The menus, the keys overlay (F1) and the command
//! palette (Ctrl+K) all read [`ACTIONS`], and the keyboard acts by it, so
//! an action cannot have a key without its menu entry and its help line.
//!
//! No UI toolkit here: a key is a [`KeyName`], which the `ui` module turns
//! into the toolkit's key, and the palette's filter and selection are a
//! plain [`Palette`].

/// A key, as the table names it (the `ui` module maps it to a toolkit key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyName {
    /// ←.
    ArrowLeft,
    /// →.
    ArrowRight,
    /// ↑.
    ArrowUp,
    /// ↓.
    ArrowDown,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// The space bar.
    Space,
    /// Escape.
    Escape,
    /// F1.
    F1,
    /// F3.
    F3,
    /// `?`.
    Questionmark,
    /// `[`.
    OpenBracket,
    /// `]`.
    CloseBracket,
    /// A letter key, lower case (`'a'`..=`'z'`).
    Letter(char),
}

impl KeyName {
    /// How the keys overlay and the palette write it.
    pub fn label(self) -> String {
        match self {
            KeyName::ArrowLeft => "←".to_owned(),
            KeyName::ArrowRight => "→".to_owned(),
            KeyName::ArrowUp => "↑".to_owned(),
            KeyName::ArrowDown => "↓".to_owned(),
            KeyName::Home => "Home".to_owned(),
            KeyName::End => "End".to_owned(),
            KeyName::PageUp => "Page Up".to_owned(),
            KeyName::PageDown => "Page Down".to_owned(),
            KeyName::Space => "Space".to_owned(),
            KeyName::Escape => "Esc".to_owned(),
            KeyName::F1 => "F1".to_owned(),
            KeyName::F3 => "F3".to_owned(),
            KeyName::Questionmark => "?".to_owned(),
            KeyName::OpenBracket => "[".to_owned(),
            KeyName::CloseBracket => "]".to_owned(),
            KeyName::Letter(letter) => letter.to_ascii_uppercase().to_string(),
        }
    }
}

/// A key with its modifiers. `ctrl` is Ctrl, or ⌘ on a Mac.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyChord {
    /// The key.
    pub key: KeyName,
    /// With Ctrl (⌘ on a Mac).
    pub ctrl: bool,
    /// With Shift.
    pub shift: bool,
}

impl KeyChord {
    /// The key alone.
    pub const fn plain(key: KeyName) -> Self {
        Self {
            key,
            ctrl: false,
            shift: false,
        }
    }

    /// The key with Ctrl (⌘ on a Mac).
    pub const fn ctrl(key: KeyName) -> Self {
        Self {
            key,
            ctrl: true,
            shift: false,
        }
    }

    /// The key with Shift.
    pub const fn shift(key: KeyName) -> Self {
        Self {
            key,
            ctrl: false,
            shift: true,
        }
    }

    /// The key with Ctrl and Shift.
    pub const fn ctrl_shift(key: KeyName) -> Self {
        Self {
            key,
            ctrl: true,
            shift: true,
        }
    }

    /// Whether it acts while a text field has the keyboard: chords with
    /// Ctrl and the function keys do (a text field has no use for them);
    /// the plain keys type into the field instead, ↑/↓ included (issue 43,
    /// point 2).
    pub fn acts_in_text_fields(self) -> bool {
        self.ctrl || matches!(self.key, KeyName::F1 | KeyName::F3)
    }

    /// How the keys overlay and the palette write it ("Ctrl+Shift+P").
    pub fn label(self) -> String {
        let mut label = String::new();
        if self.ctrl {
            label.push_str("Ctrl+");
        }
        if self.shift {
            label.push_str("Shift+");
        }
        label.push_str(&self.key.label());
        label
    }
}

/// A pointer gesture an action is done with (on the timeline): listed by
/// the keys overlay and the palette, handled where the pointer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointerGesture {
    /// The mouse wheel.
    Wheel,
    /// The mouse wheel with Ctrl held.
    CtrlWheel,
    /// A drag with the right button.
    RightDrag,
}

impl PointerGesture {
    /// How the keys overlay and the palette write it.
    pub fn label(self) -> &'static str {
        match self {
            PointerGesture::Wheel => "Wheel",
            PointerGesture::CtrlWheel => "Ctrl+wheel",
            PointerGesture::RightDrag => "Right-drag",
        }
    }
}

/// What an action is done with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// A key.
    Key(KeyChord),
    /// A gesture on the timeline.
    Pointer(PointerGesture),
}

impl Trigger {
    /// How the keys overlay and the palette write it.
    pub fn label(self) -> String {
        match self {
            Trigger::Key(chord) => chord.label(),
            Trigger::Pointer(gesture) => gesture.label().to_owned(),
        }
    }
}

/// The menu an action sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Menu {
    /// File.
    File,
    /// What if: "What if this event were different?" (issue 41).
    WhatIf,
    /// View.
    View,
    /// Go: moving the cursor.
    Go,
    /// Marks: marks A and B, diffs and bookmarks.
    Marks,
    /// Serve.
    Serve,
    /// Help.
    Help,
}

impl Menu {
    /// The menu bar's order.
    pub const ALL: [Menu; 7] = [
        Menu::File,
        Menu::WhatIf,
        Menu::View,
        Menu::Go,
        Menu::Marks,
        Menu::Serve,
        Menu::Help,
    ];

    /// Its title in the menu bar.
    pub fn title(self) -> &'static str {
        match self {
            Menu::File => "File",
            Menu::WhatIf => "What if",
            Menu::View => "View",
            Menu::Go => "Go",
            Menu::Marks => "Marks",
            Menu::Serve => "Serve",
            Menu::Help => "Help",
        }
    }
}

/// Where an action is found besides its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// An entry of a menu.
    Menu(Menu),
    /// On the timeline, for the pointer (zoom, pan, a range): these have no
    /// menu entry, the pointer being where they happen.
    Timeline,
    /// Wherever a palette, overlay or dialog is open (Esc).
    Dialogs,
}

/// An action of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionId {
    /// File › Open….
    Open,
    /// File › Compare with….
    CompareWith,
    /// File › Export repro….
    ExportRepro,
    /// File › Quit.
    Quit,
    /// What if › Skip this event (issue 41).
    SkipEvent,
    /// What if › Edit this event….
    EditEvent,
    /// What if › Insert an event before….
    InsertEvent,
    /// What if › Toggle recorded / edited.
    ToggleEdited,
    /// What if › Clear edits.
    ClearEdits,
    /// What if › Compare edited with the recording.
    CompareEdited,
    /// What if › Save edits into the recording.
    SaveEdits,
    /// View › Event list (shown or hidden).
    ToggleEventList,
    /// View › Inspector (shown or hidden).
    ToggleInspector,
    /// View › Timeline (shown or hidden).
    ToggleTimeline,
    /// View › Timeline in recorded time (or in steps; issue 43).
    TimelineInTime,
    /// View › Reset layout.
    ResetLayout,
    /// View › Activity schemas… (issue 42).
    ActivitySchemas,
    /// View › No activity schemas.
    NoActivitySchemas,
    /// View › Infer from this recording….
    InferSchemas,
    /// The inspector tab.
    ShowInspector,
    /// The State tab.
    ShowState,
    /// The keyboard into the event list's filter.
    FocusEventFilter,
    /// One step back.
    PreviousStep,
    /// One step forward.
    NextStep,
    /// The previous event of the event list (as filtered).
    PreviousEvent,
    /// The next event of the event list (as filtered).
    NextEvent,
    /// The first step.
    FirstStep,
    /// The last step, following a live recording.
    LastStep,
    /// A page back.
    PageBack,
    /// A page forward.
    PageForward,
    /// The next diagnostic.
    NextDiagnostic,
    /// The previous diagnostic.
    PreviousDiagnostic,
    /// The next search match.
    NextMatch,
    /// The previous search match.
    PreviousMatch,
    /// Play or pause.
    TogglePlay,
    /// Mark A at the cursor.
    MarkA,
    /// Mark B at the cursor.
    MarkB,
    /// Diff with the previous step.
    DiffWithPrevious,
    /// A bookmark at the cursor.
    Bookmark,
    /// The previous bookmark.
    PreviousBookmark,
    /// The next bookmark.
    NextBookmark,
    /// Serve › Serve this stream….
    Serve,
    /// Help › Keys.
    ShowKeys,
    /// Help › Command palette.
    CommandPalette,
    /// Help › Rules reference.
    RulesReference,
    /// Help › About (the version, and where the manual is).
    About,
    /// Esc: closes the palette, the keys or a dialog.
    Close,
    /// Ctrl+wheel on the timeline.
    ZoomTimeline,
    /// The wheel on the timeline.
    PanTimeline,
    /// A right-drag on the timeline.
    MarkRange,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct Action {
    /// Which action.
    pub id: ActionId,
    /// Its name, as its menu entry and the palette write it.
    pub name: &'static str,
    /// Its keys, or its gesture, first the one shown in menus; none for
    /// an action that only its menu entry does.
    pub triggers: &'static [Trigger],
    /// Where it sits besides its keys.
    pub placement: Placement,
    /// What it does, in a line (the keys overlay, the palette, the menu's
    /// hover).
    pub help: &'static str,
    /// Whether holding its key repeats it (the stepping keys do; a held `m`
    /// must not write a bookmark per repeat).
    pub repeats: bool,
}

impl Action {
    /// The keys of the action (not its gestures).
    pub fn chords(&self) -> impl Iterator<Item = KeyChord> + '_ {
        self.triggers.iter().filter_map(|trigger| match trigger {
            Trigger::Key(chord) => Some(*chord),
            Trigger::Pointer(_) => None,
        })
    }

    /// Its triggers as the overlay and the palette write them ("F1, ?").
    pub fn triggers_label(&self) -> String {
        self.triggers
            .iter()
            .map(|trigger| trigger.label())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether the palette can run it (a gesture cannot be run by name).
    pub fn runs_from_palette(&self) -> bool {
        self.placement != Placement::Timeline
    }
}

const fn key(key: KeyName) -> Trigger {
    Trigger::Key(KeyChord::plain(key))
}

const fn ctrl(key: KeyName) -> Trigger {
    Trigger::Key(KeyChord::ctrl(key))
}

const fn letter(letter: char) -> Trigger {
    Trigger::Key(KeyChord::plain(KeyName::Letter(letter)))
}

const fn row(
    id: ActionId,
    name: &'static str,
    triggers: &'static [Trigger],
    placement: Placement,
    help: &'static str,
) -> Action {
    Action {
        id,
        name,
        triggers,
        placement,
        help,
        repeats: false,
    }
}

const fn repeating(action: Action) -> Action {
    Action {
        repeats: true,
        ..action
    }
}

use Placement::Menu as In;

/// Every action, in the order of their menus.
pub const ACTIONS: &[Action] = &[
    row(
        ActionId::Open,
        "Open…",
        &[ctrl(KeyName::Letter('o'))],
        In(Menu::File),
        "Open a recording or stream file",
    ),
    row(
        ActionId::CompareWith,
        "Compare with…",
        &[],
        In(Menu::File),
        "Open a second recording or stream beside this one, aligned event by event",
    ),
    row(
        ActionId::ExportRepro,
        "Export repro…",
        &[ctrl(KeyName::Letter('e'))],
        In(Menu::File),
        "Export a minimal repro of the selected activity",
    ),
    row(
        ActionId::Quit,
        "Quit",
        &[ctrl(KeyName::Letter('q'))],
        In(Menu::File),
        "Close the window",
    ),
    row(
        ActionId::SkipEvent,
        "Skip this event",
        &[],
        In(Menu::WhatIf),
        "What if the event at the cursor had not been sent: replay without it",
    ),
    row(
        ActionId::EditEvent,
        "Edit this event…",
        &[],
        In(Menu::WhatIf),
        "What if the event at the cursor had been different: edit its JSON and replay",
    ),
    row(
        ActionId::InsertEvent,
        "Insert an event before…",
        &[],
        In(Menu::WhatIf),
        "What if another event had come before the cursor's: write it and replay",
    ),
    row(
        ActionId::ToggleEdited,
        "Toggle recorded / edited",
        &[letter('e')],
        In(Menu::WhatIf),
        "Show the stream as recorded or with your edits",
    ),
    row(
        ActionId::ClearEdits,
        "Clear edits",
        &[],
        In(Menu::WhatIf),
        "Remove every edit: the stream as recorded",
    ),
    row(
        ActionId::CompareEdited,
        "Compare edited with the recording",
        &[],
        In(Menu::WhatIf),
        "The edited stream beside the recording, from the first divergence",
    ),
    row(
        ActionId::SaveEdits,
        "Save edits into the recording",
        &[],
        In(Menu::WhatIf),
        "Keep the edits in the .rec file (its events unchanged), restored when it opens",
    ),
    row(
        ActionId::ToggleEventList,
        "Event list",
        &[],
        In(Menu::View),
        "Show or hide the event list",
    ),
    row(
        ActionId::ToggleInspector,
        "Inspector",
        &[],
        In(Menu::View),
        "Show or hide the right panel (inspector, diagnostics, bookmarks, search, state)",
    ),
    row(
        ActionId::ToggleTimeline,
        "Timeline",
        &[],
        In(Menu::View),
        "Show or hide the timeline",
    ),
    row(
        ActionId::TimelineInTime,
        "Timeline in recorded time",
        &[letter('t')],
        In(Menu::View),
        "Read the timeline in recorded time, the gaps visible (ms, s, min), or event by event",
    ),
    row(
        ActionId::ResetLayout,
        "Reset layout",
        &[],
        In(Menu::View),
        "Show every panel at its default width",
    ),
    row(
        ActionId::ActivitySchemas,
        "Activity schemas…",
        &[],
        In(Menu::View),
        "Check each activity's content against a folder of JSON Schemas, as check --schemas does",
    ),
    row(
        ActionId::NoActivitySchemas,
        "No activity schemas",
        &[],
        In(Menu::View),
        "Stop checking the contents against the schema folder",
    ),
    row(
        ActionId::InferSchemas,
        "Infer from this recording…",
        &[],
        In(Menu::View),
        "Write a schema folder inferred from the open stream, as schemas infer does, and check against it",
    ),
    row(
        ActionId::ShowInspector,
        "Inspector tab",
        &[letter('i')],
        In(Menu::View),
        "Show the inspector",
    ),
    row(
        ActionId::ShowState,
        "State tab",
        &[letter('s')],
        In(Menu::View),
        "Show the shared state at the cursor (State tab)",
    ),
    row(
        ActionId::FocusEventFilter,
        "Filter events",
        &[ctrl(KeyName::Letter('f'))],
        In(Menu::View),
        "Type into the event list's filter",
    ),
    repeating(row(
        ActionId::NextStep,
        "Next step",
        &[key(KeyName::ArrowRight)],
        In(Menu::Go),
        "Next step",
    )),
    repeating(row(
        ActionId::PreviousStep,
        "Previous step",
        &[key(KeyName::ArrowLeft)],
        In(Menu::Go),
        "Previous step",
    )),
    repeating(row(
        ActionId::NextEvent,
        "Next event",
        &[key(KeyName::ArrowDown)],
        In(Menu::Go),
        "Next event of the event list, as filtered",
    )),
    repeating(row(
        ActionId::PreviousEvent,
        "Previous event",
        &[key(KeyName::ArrowUp)],
        In(Menu::Go),
        "Previous event of the event list, as filtered",
    )),
    row(
        ActionId::FirstStep,
        "First step",
        &[key(KeyName::Home)],
        In(Menu::Go),
        "First step: the first event",
    ),
    row(
        ActionId::LastStep,
        "Last step",
        &[key(KeyName::End)],
        In(Menu::Go),
        "Last step (and follow a live recording)",
    ),
    repeating(row(
        ActionId::PageForward,
        "Page forward",
        &[key(KeyName::PageDown)],
        In(Menu::Go),
        "A tenth of the visible timeline forward (at least 10 steps)",
    )),
    repeating(row(
        ActionId::PageBack,
        "Page back",
        &[key(KeyName::PageUp)],
        In(Menu::Go),
        "A tenth of the visible timeline back (at least 10 steps)",
    )),
    repeating(row(
        ActionId::NextDiagnostic,
        "Next diagnostic",
        &[letter('n')],
        In(Menu::Go),
        "Next diagnostic",
    )),
    repeating(row(
        ActionId::PreviousDiagnostic,
        "Previous diagnostic",
        &[letter('p')],
        In(Menu::Go),
        "Previous diagnostic",
    )),
    repeating(row(
        ActionId::NextMatch,
        "Next match",
        &[key(KeyName::F3)],
        In(Menu::Go),
        "Next match of the search tab's query",
    )),
    repeating(row(
        ActionId::PreviousMatch,
        "Previous match",
        &[Trigger::Key(KeyChord::shift(KeyName::F3))],
        In(Menu::Go),
        "Previous match of the search tab's query",
    )),
    row(
        ActionId::TogglePlay,
        "Play or pause",
        &[key(KeyName::Space)],
        In(Menu::Go),
        "Play or pause",
    ),
    row(
        ActionId::MarkA,
        "Mark A",
        &[letter('a')],
        In(Menu::Marks),
        "Put mark A at the cursor",
    ),
    row(
        ActionId::MarkB,
        "Mark B",
        &[letter('b')],
        In(Menu::Marks),
        "Put mark B at the cursor",
    ),
    row(
        ActionId::DiffWithPrevious,
        "Diff with previous step",
        &[letter('d')],
        In(Menu::Marks),
        "Diff with the previous step",
    ),
    row(
        ActionId::Bookmark,
        "Bookmark",
        &[letter('m')],
        In(Menu::Marks),
        "Bookmark the cursor",
    ),
    row(
        ActionId::PreviousBookmark,
        "Previous bookmark",
        &[key(KeyName::OpenBracket)],
        In(Menu::Marks),
        "Previous bookmark",
    ),
    row(
        ActionId::NextBookmark,
        "Next bookmark",
        &[key(KeyName::CloseBracket)],
        In(Menu::Marks),
        "Next bookmark",
    ),
    row(
        ActionId::Serve,
        "Serve this stream…",
        &[],
        In(Menu::Serve),
        "An AG-UI endpoint for your front end, following the timeline",
    ),
    row(
        ActionId::ShowKeys,
        "Keys",
        &[key(KeyName::F1), key(KeyName::Questionmark)],
        In(Menu::Help),
        "Show or hide this list of keys",
    ),
    row(
        ActionId::CommandPalette,
        "Command palette",
        &[
            ctrl(KeyName::Letter('k')),
            Trigger::Key(KeyChord::ctrl_shift(KeyName::Letter('p'))),
        ],
        In(Menu::Help),
        "Every action by name, with its keys",
    ),
    row(
        ActionId::RulesReference,
        "Rules reference",
        &[],
        In(Menu::Help),
        "The replay rules and the diagnostic codes that report them",
    ),
    row(
        ActionId::About,
        "About agui-replay",
        &[],
        In(Menu::Help),
        "The version, and where the manual is",
    ),
    row(
        ActionId::Close,
        "Close",
        &[key(KeyName::Escape)],
        Placement::Dialogs,
        "Close the palette, this list or a dialog",
    ),
    row(
        ActionId::ZoomTimeline,
        "Zoom the timeline",
        &[Trigger::Pointer(PointerGesture::CtrlWheel)],
        Placement::Timeline,
        "Zoom the timeline in or out around the pointer",
    ),
    row(
        ActionId::PanTimeline,
        "Pan the timeline",
        &[Trigger::Pointer(PointerGesture::Wheel)],
        Placement::Timeline,
        "Move the timeline's visible range",
    ),
    row(
        ActionId::MarkRange,
        "Diff a range",
        &[Trigger::Pointer(PointerGesture::RightDrag)],
        Placement::Timeline,
        "Marks A and B over the range dragged on the timeline, and the diff",
    ),
];

/// The row of an action.
pub fn action(id: ActionId) -> &'static Action {
    // Every id has a row: `every_id_has_one_row` checks it.
    ACTIONS
        .iter()
        .find(|action| action.id == id)
        .unwrap_or(&ACTIONS[0])
}

/// The actions of a menu, in order.
pub fn in_menu(menu: Menu) -> impl Iterator<Item = &'static Action> {
    ACTIONS
        .iter()
        .filter(move |action| action.placement == Placement::Menu(menu))
}

/// The action a key does: the one with exactly these modifiers, else (the
/// key pressed with Shift) one without Shift, so that `?` (Shift on most
/// layouts) and `]` act whatever the layout asks for.
pub fn action_of_chord(pressed: KeyChord) -> Option<&'static Action> {
    let exact = ACTIONS
        .iter()
        .find(|action| action.chords().any(|chord| chord == pressed));
    exact.or_else(|| {
        let unshifted = KeyChord {
            shift: false,
            ..pressed
        };
        pressed
            .shift
            .then(|| {
                ACTIONS
                    .iter()
                    .find(|action| action.chords().any(|chord| chord == unshifted))
            })
            .flatten()
    })
}

/// The command palette (Ctrl+K, Ctrl+Shift+P): a filter over the table and
/// the selected row of what it matches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Palette {
    /// Shown.
    pub open: bool,
    /// What is typed.
    pub filter: String,
    /// The selected row, among [`Palette::matches`].
    pub selected: usize,
}

impl Palette {
    /// Opens it, empty, on the first row.
    pub fn show(&mut self) {
        *self = Palette {
            open: true,
            ..Palette::default()
        };
    }

    /// The actions whose name, help, menu or keys contain every word typed
    /// (ignoring case), in the table's order.
    pub fn matches(&self) -> Vec<&'static Action> {
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        ACTIONS
            .iter()
            .filter(|action| {
                let haystack = format!(
                    "{} {} {} {}",
                    action.name,
                    action.help,
                    placement_label(action.placement),
                    action.triggers_label()
                )
                .to_lowercase();
                words.iter().all(|word| haystack.contains(word))
            })
            .collect()
    }

    /// A new filter: the selection goes back to the first row.
    pub fn set_filter(&mut self, filter: String) {
        if filter != self.filter {
            self.filter = filter;
            self.selected = 0;
        }
    }

    /// Moves the selection by `rows` (↑ is -1), within the matches.
    pub fn move_selection(&mut self, rows: isize) {
        let last = self.matches().len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(rows).min(last);
    }

    /// The selected action (Enter runs it), if any matches.
    pub fn selected_action(&self) -> Option<&'static Action> {
        let matches = self.matches();
        matches
            .get(self.selected.min(matches.len().saturating_sub(1)))
            .copied()
    }
}

/// Where an action is, for the palette and the keys overlay ("Go", "the
/// timeline").
pub fn placement_label(placement: Placement) -> &'static str {
    match placement {
        Placement::Menu(menu) => menu.title(),
        Placement::Timeline => "Timeline",
        Placement::Dialogs => "Dialogs",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_has_one_row() {
        for (i, action) in ACTIONS.iter().enumerate() {
            assert!(
                ACTIONS[..i].iter().all(|other| other.id != action.id),
                "{:?} has two rows",
                action.id
            );
            assert_eq!(super::action(action.id).id, action.id);
            assert!(!action.name.is_empty() && !action.help.is_empty());
            assert!(
                !action.help.ends_with('.'),
                "{}: no trailing period",
                action.name
            );
        }
    }

    #[test]
    fn every_key_does_one_action() {
        for (i, action) in ACTIONS.iter().enumerate() {
            for chord in action.chords() {
                let others = ACTIONS[..i]
                    .iter()
                    .chain(&ACTIONS[i + 1..])
                    .filter(|other| other.chords().any(|c| c == chord))
                    .count();
                assert_eq!(others, 0, "{} is bound twice", chord.label());
                assert_eq!(action_of_chord(chord).map(|a| a.id), Some(action.id));
            }
        }
    }

    #[test]
    fn shift_f3_is_not_f3_but_a_shifted_bracket_is_a_bracket() {
        let f3 = action_of_chord(KeyChord::shift(KeyName::F3)).map(|a| a.id);
        assert_eq!(f3, Some(ActionId::PreviousMatch));
        let bracket = action_of_chord(KeyChord::shift(KeyName::CloseBracket)).map(|a| a.id);
        assert_eq!(bracket, Some(ActionId::NextBookmark));
        assert!(action_of_chord(KeyChord::ctrl(KeyName::Letter('z'))).is_none());
    }

    #[test]
    fn the_issue_43_keys_are_in_the_table() {
        // F1 omitted these (issue 43, point 1).
        for label in [
            "F3",
            "Shift+F3",
            "Esc",
            "Ctrl+wheel",
            "Right-drag",
            "↑",
            "↓",
        ] {
            assert!(
                ACTIONS
                    .iter()
                    .any(|action| action.triggers.iter().any(|t| t.label() == label)),
                "{label}"
            );
        }
    }

    #[test]
    fn the_issue_41_actions_are_in_the_what_if_menu() {
        // "What if this event were different?": every edit has its menu
        // entry (and so its palette row), the toggle its key.
        let edit: Vec<ActionId> = in_menu(Menu::WhatIf).map(|a| a.id).collect();
        for id in [
            ActionId::SkipEvent,
            ActionId::EditEvent,
            ActionId::InsertEvent,
            ActionId::ToggleEdited,
            ActionId::ClearEdits,
            ActionId::CompareEdited,
            ActionId::SaveEdits,
        ] {
            assert!(edit.contains(&id), "{id:?}");
            assert!(action(id).runs_from_palette());
        }
        let toggle = action_of_chord(KeyChord::plain(KeyName::Letter('e'))).map(|a| a.id);
        assert_eq!(toggle, Some(ActionId::ToggleEdited));
        let export = action_of_chord(KeyChord::ctrl(KeyName::Letter('e'))).map(|a| a.id);
        assert_eq!(export, Some(ActionId::ExportRepro));
        assert!(Menu::ALL.contains(&Menu::WhatIf));
    }

    #[test]
    fn the_palette_filters_by_every_word_and_keeps_the_selection_in_range() {
        let mut palette = Palette::default();
        palette.show();
        assert_eq!(palette.matches().len(), ACTIONS.len());
        palette.set_filter("next BOOK".to_owned());
        let names: Vec<_> = palette.matches().iter().map(|a| a.name).collect();
        assert_eq!(names, ["Next bookmark"]);
        palette.move_selection(5);
        assert_eq!(palette.selected, 0);
        palette.set_filter("next".to_owned());
        palette.move_selection(1);
        assert_eq!(palette.selected, 1);
        palette.move_selection(-7);
        assert_eq!(palette.selected, 0);
        palette.set_filter("no such action".to_owned());
        assert!(palette.selected_action().is_none());
        palette.set_filter("ctrl+k".to_owned());
        assert_eq!(
            palette.selected_action().map(|a| a.id),
            Some(ActionId::CommandPalette)
        );
    }
}
