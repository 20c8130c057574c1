//! Search over time: the first, next or previous step where a JSON pointer
//! of an activity (or of the state) exists, equals a value or contains one.
//! The engine's [`Search`] runs a slice per frame, so a search over a long
//! stream shows its progress and can be stopped; a match moves the playhead.

use crate::ui::command::SearchCommand;
use std::time::Instant;

use egui::{RichText, Ui};
use serde_json::Value;

use super::json_tree::compact_json;
use super::state::{AppState, Command, SearchFrom};
use crate::diagnostic::Seq;
use crate::search::{Predicate, Query, Search, SearchStatus, Target};
use crate::timeline::Timeline;

/// Events a search replays per frame (about 20 ms at a million a second).
pub const EVENTS_PER_FRAME: usize = 20_000;

/// The search over time: a search in progress, or the last one's result,
/// and a search a JSON tree asked for. Changed by [`SearchCommand`]s;
/// [`SearchRun::advance`] runs a slice of it in the logic step.
#[derive(Default)]
pub struct SearchRun {
    running: Option<Running>,
    /// What the last search found, for the panel.
    outcome: Option<SearchOutcome>,
    /// The query of the last search (its outcome shows while the fields
    /// still say it).
    query: Option<Query>,
    /// A search a JSON tree asked for, for the search tab to take.
    prefill: Option<(Option<String>, String)>,
}

struct Running {
    search: Search,
    description: String,
    started: Instant,
    progress: f32,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchOutcome {
    /// A match, where the playhead went.
    Found {
        /// What was searched.
        description: String,
        /// The step.
        step: Seq,
        /// The value at the pointer there.
        value: Option<Value>,
    },
    /// No step matches.
    NotFound {
        /// What was searched.
        description: String,
    },
}

/// What a slice of the search did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchProgress {
    /// No search runs.
    Idle,
    /// Still running.
    Running,
    /// A match at this step: the cursor goes there.
    Found(Seq),
    /// It ended without a match.
    NotFound,
}

impl SearchRun {
    /// Whether a search is running, and how far it got (0 to 1).
    pub fn progress(&self) -> Option<f32> {
        self.running.as_ref().map(|r| r.progress)
    }

    /// What the last search found.
    pub fn outcome(&self) -> Option<&SearchOutcome> {
        self.outcome.as_ref()
    }

    /// The query of the last search.
    pub fn query(&self) -> Option<&Query> {
        self.query.as_ref()
    }

    /// Takes the search a JSON tree asked for, if any.
    pub fn take_prefill(&mut self) -> Option<(Option<String>, String)> {
        self.prefill.take()
    }

    /// Applies a command, the cursor at `step`.
    pub fn apply(&mut self, command: SearchCommand, step: Seq) {
        match command {
            SearchCommand::Start(query, from) => self.start(query, from, step),
            SearchCommand::Cancel => self.running = None,
            SearchCommand::Prefill { message, pointer } => {
                self.prefill = Some((message, pointer));
            }
        }
    }

    fn start(&mut self, query: Query, from: SearchFrom, step: Seq) {
        let description = describe(&query, from);
        self.query = Some(query.clone());
        let search = match from {
            SearchFrom::First => Search::first(query),
            SearchFrom::Next => Search::next(query, step),
            SearchFrom::Previous => Search::previous(query, step),
        };
        self.running = Some(Running {
            search,
            description,
            started: Instant::now(),
            progress: 0.0,
        });
        self.outcome = None;
    }

    /// Runs the search over `timeline` for about `budget` events.
    pub fn advance(&mut self, timeline: &Timeline, budget: usize) -> SearchProgress {
        let Some(running) = &mut self.running else {
            return SearchProgress::Idle;
        };
        match running.search.advance(timeline, budget) {
            SearchStatus::Pending { done, total } => {
                running.progress = if total == 0 {
                    0.0
                } else {
                    done as f32 / total as f32
                };
                SearchProgress::Running
            }
            SearchStatus::Found(found) => {
                let description = running.description.clone();
                self.running = None;
                self.outcome = Some(SearchOutcome::Found {
                    description,
                    step: found.step,
                    value: found.value,
                });
                SearchProgress::Found(found.step)
            }
            SearchStatus::NotFound => {
                let description = running.description.clone();
                self.running = None;
                self.outcome = Some(SearchOutcome::NotFound { description });
                SearchProgress::NotFound
            }
        }
    }
}

/// A short description of a query and a direction.
fn describe(query: &Query, from: SearchFrom) -> String {
    let target = match &query.target {
        Target::Message(id) => id.clone(),
        Target::State => "state".to_owned(),
    };
    let predicate = match &query.predicate {
        Predicate::Exists => "exists".to_owned(),
        Predicate::Equals(value) => format!("= {}", compact_json(value, 40)),
        Predicate::Contains(value) => format!("contains {}", compact_json(value, 40)),
    };
    let direction = match from {
        SearchFrom::First => "first",
        SearchFrom::Next => "next",
        SearchFrom::Previous => "previous",
    };
    format!(
        "{direction} step where {target} {} {predicate}",
        display_pointer(&query.pointer)
    )
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(whole)"
    } else {
        pointer
    }
}

/// What is searched for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Condition {
    /// The pointer resolves.
    #[default]
    Exists,
    /// The value there equals the JSON.
    Equals,
    /// The value there contains it (substring, element, members).
    Contains,
}

/// What the search fields hold between frames.
#[derive(Clone, Debug, Default)]
pub struct SearchForm {
    /// The activity searched (`None`: the state).
    pub message: Option<String>,
    /// Whether the activity was picked by the user (otherwise it follows
    /// the selection).
    pub picked: bool,
    /// The JSON pointer.
    pub pointer: String,
    /// The condition.
    pub condition: Condition,
    /// The value, as JSON (or plain text for `contains`).
    pub value: String,
}

impl SearchForm {
    /// The steps where a value changes: the pointer's value, wherever it
    /// exists (each match is a change, see [`crate::search`]).
    pub fn prefill(&mut self, message: Option<String>, pointer: String) {
        self.message = message;
        self.picked = true;
        self.pointer = pointer;
        self.condition = Condition::Exists;
        self.value.clear();
    }

    /// The query the fields describe, or what is wrong with them.
    pub fn query(&self) -> Result<Query, String> {
        let target = match &self.message {
            Some(id) => Target::Message(id.clone()),
            None => Target::State,
        };
        let parse = |text: &str| serde_json::from_str::<Value>(text.trim());
        let predicate = match self.condition {
            Condition::Exists => Predicate::Exists,
            Condition::Equals => Predicate::Equals(
                parse(&self.value).map_err(|e| format!("the value is not JSON: {e}"))?,
            ),
            // Text that is not JSON is looked for as a string.
            Condition::Contains => Predicate::Contains(
                parse(&self.value).unwrap_or_else(|_| Value::String(self.value.clone())),
            ),
        };
        Query::new(target, self.pointer.trim(), predicate).map_err(|e| e.to_string())
    }
}

/// The search tab.
pub fn search_ui(
    ui: &mut Ui,
    state: &AppState,
    form: &mut SearchForm,
    commands: &mut Vec<Command>,
) {
    let Some(doc) = state.doc() else {
        ui.weak("No stream open.");
        return;
    };
    if !form.picked {
        form.message = state.selected_activity().map(str::to_owned);
    }
    let mut submit = None;
    egui::Grid::new("search_form")
        .num_columns(2)
        .show(ui, |ui| {
            let in_label = ui.label("In");
            let selected = form
                .message
                .clone()
                .unwrap_or_else(|| "the state".to_owned());
            egui::ComboBox::from_id_salt("search_target")
                .selected_text(selected)
                .width(220.0)
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(form.message.is_none(), "the state")
                        .clicked()
                    {
                        form.message = None;
                        form.picked = true;
                    }
                    for lane in doc.timeline.index().lanes() {
                        let id = &lane.message_id;
                        if ui
                            .selectable_label(form.message.as_ref() == Some(id), id)
                            .clicked()
                        {
                            form.message = Some(id.clone());
                            form.picked = true;
                        }
                    }
                })
                .response
                .labelled_by(in_label.id);
            ui.end_row();
            let pointer_label = ui.label("Pointer");
            let hint = if form.message.is_some() {
                "/content/status"
            } else {
                "/count"
            };
            let pointer = ui
                .add(
                    egui::TextEdit::singleline(&mut form.pointer)
                        .hint_text(hint)
                        .desired_width(220.0),
                )
                .labelled_by(pointer_label.id);
            if pointer.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                submit = Some(SearchFrom::Next);
            }
            ui.end_row();
            ui.label("Where it");
            ui.horizontal(|ui| {
                ui.radio_value(&mut form.condition, Condition::Exists, "exists");
                ui.radio_value(&mut form.condition, Condition::Equals, "equals");
                ui.radio_value(&mut form.condition, Condition::Contains, "contains");
            });
            ui.end_row();
            if form.condition != Condition::Exists {
                let value_label = ui.label("Value");
                let value = ui
                    .add(
                        egui::TextEdit::singleline(&mut form.value)
                            .hint_text("JSON: \"done\", 3, true, {…}")
                            .desired_width(220.0),
                    )
                    .labelled_by(value_label.id);
                if value.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    submit = Some(SearchFrom::Next);
                }
                ui.end_row();
            }
        });
    if form.message.is_some() {
        ui.weak("The pointer is into the message as `state --message` prints it: /content/…, /metadata/….");
    }
    let query = form.query();
    ui.horizontal(|ui| {
        let ok = query.is_ok();
        for (from, label, hover) in [
            (SearchFrom::First, "First", "The first step where it holds"),
            (
                SearchFrom::Previous,
                "Previous",
                "The last match before the cursor",
            ),
            (
                SearchFrom::Next,
                "Next",
                "The first match after the cursor (Enter)",
            ),
        ] {
            if ui
                .add_enabled(ok, egui::Button::new(label))
                .on_hover_text(hover)
                .clicked()
            {
                submit = Some(from);
            }
        }
    });
    match (&query, submit) {
        (Ok(query), Some(from)) => {
            commands.push(Command::Search(SearchCommand::Start(query.clone(), from)))
        }
        // Said once something is typed.
        (Err(error), _) if !form.pointer.is_empty() || !form.value.is_empty() => {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        _ => {}
    }
    if let Some(progress) = state.search().progress() {
        ui.horizontal(|ui| {
            ui.add(
                egui::ProgressBar::new(progress)
                    .desired_width(200.0)
                    .show_percentage(),
            );
            if ui.button("Stop").clicked() {
                commands.push(Command::Search(SearchCommand::Cancel));
            }
        });
        if let Some(running) = &state.search().running {
            ui.weak(format!(
                "{} ({:.1} s)",
                running.description,
                running.started.elapsed().as_secs_f32()
            ));
        }
    }
    // An outcome is about the query that ran: edited fields hide it.
    let outcome = state
        .search()
        .outcome()
        .filter(|_| state.search().query() == query.as_ref().ok());
    match outcome {
        Some(SearchOutcome::Found {
            description,
            step,
            value,
        }) => {
            ui.label(RichText::new(format!("Step {step}")).strong());
            ui.weak(description);
            let value = value
                .as_ref()
                .map_or_else(|| "(absent)".to_owned(), |v| compact_json(v, 200));
            ui.label(RichText::new(value).monospace());
        }
        Some(SearchOutcome::NotFound { description }) => {
            ui.label("No match");
            ui.weak(description);
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    // The search's state machine, with no egui context (issue 16, point 3).
    use super::*;
    use crate::ui::event_list::tests::{STREAM, doc_of};

    fn found_query() -> Query {
        Query::new(
            Target::Message("a-1".into()),
            "/content/found",
            Predicate::Equals(Value::from(1)),
        )
        .expect("a query")
    }

    fn run(search: &mut SearchRun, timeline: &Timeline) -> SearchProgress {
        loop {
            match search.advance(timeline, 1) {
                SearchProgress::Running => continue,
                other => return other,
            }
        }
    }

    #[test]
    fn a_search_runs_in_slices_and_says_where_it_found() {
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        assert_eq!(search.advance(&doc.timeline, 10), SearchProgress::Idle);
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::First),
            Seq::new(0),
        );
        assert_eq!(search.progress(), Some(0.0));
        assert_eq!(
            run(&mut search, &doc.timeline),
            SearchProgress::Found(Seq::new(3))
        );
        assert!(search.progress().is_none(), "done");
        assert!(matches!(
            search.outcome(),
            Some(SearchOutcome::Found { step, .. }) if *step == Seq::new(3)
        ));
        assert_eq!(search.query(), Some(&found_query()));
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::Next),
            Seq::new(3),
        );
        assert_eq!(run(&mut search, &doc.timeline), SearchProgress::NotFound);
        assert!(matches!(
            search.outcome(),
            Some(SearchOutcome::NotFound { .. })
        ));
    }

    #[test]
    fn a_cancelled_search_stops_and_a_prefill_is_taken_once() {
        let doc = doc_of(STREAM);
        let mut search = SearchRun::default();
        search.apply(
            SearchCommand::Start(found_query(), SearchFrom::First),
            Seq::new(0),
        );
        search.apply(SearchCommand::Cancel, Seq::new(0));
        assert_eq!(search.advance(&doc.timeline, 100), SearchProgress::Idle);
        assert!(search.outcome().is_none());
        search.apply(
            SearchCommand::Prefill {
                message: Some("a-1".into()),
                pointer: "/content/found".into(),
            },
            Seq::new(0),
        );
        assert_eq!(
            search.take_prefill(),
            Some((Some("a-1".into()), "/content/found".into()))
        );
        assert_eq!(search.take_prefill(), None);
    }
}
