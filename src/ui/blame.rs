//! Blame in the app (issue 17.2): the hint a value of the inspector, the
//! diff or the state view shows on hover ("set at step 412 by op 2 of
//! ACTIVITY_DELTA; 7 changes"), from [`crate::search::blame`] over the
//! document's timeline, kept per document, target, pointer and step.

use egui::Id;

use super::json_tree::BlameHook;
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::time_control::TimeCommand;
use crate::diagnostic::Seq;
use crate::search::{Target, blame};

/// The hint for the value at `pointer` in `target` at step `at`, and the
/// step that last set it; `None` when it was never set. Computed once per
/// document `generation`, then kept.
pub fn blame_hint(
    ctx: &egui::Context,
    doc: &Doc,
    generation: u64,
    target: &Target,
    pointer: &str,
    at: Seq,
) -> Option<(String, Seq)> {
    let name = match target {
        Target::State => None,
        Target::Message(id) => Some(id.as_str()),
    };
    let id = Id::unique(("blame-hint", generation, name, pointer, at));
    if let Some(known) = ctx.data(|d| d.get_temp::<Option<(String, Seq)>>(id)) {
        return known;
    }
    let hint = blame(&doc.timeline, target, pointer, at)
        .ok()
        .and_then(|found| Some((found.summary(), found.last()?.step)));
    ctx.data_mut(|d| d.insert_temp(id, hint.clone()));
    hint
}

/// A hook for a tree showing `target` at step `at`, whose root is at
/// `prefix` in the target (`/content` for an activity's content).
pub fn hook<'a>(
    ctx: &'a egui::Context,
    doc: &'a Doc,
    generation: u64,
    target: Target,
    prefix: &'a str,
    at: Seq,
) -> BlameHook<'a> {
    BlameHook::new(move |pointer| {
        blame_hint(
            ctx,
            doc,
            generation,
            &target,
            &format!("{prefix}{pointer}"),
            at,
        )
    })
}

/// Goes to the step of the value clicked, if one was.
pub fn go_to_clicked(hook: &BlameHook<'_>, commands: &mut Vec<Command>) {
    if let Some(step) = hook.clicked() {
        commands.push(Command::Time(TimeCommand::Set(step)));
    }
}
