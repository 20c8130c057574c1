//! The diagnostics panel: every diagnostic of the stream (the reader's and
//! the replay's), grouped by code, worst first, with a filter; each group
//! shows the rule its code reports (`docs/RULES.md`).
//!
//! Grouping a small list is cheap enough to do every frame. A large one
//! (from [`LARGE`] diagnostics) is grouped once per document, replay options
//! and filter, and kept in egui's temporary memory. Inside a group only the
//! rows on screen are laid out, so a group of a million costs no more than
//! one of fifty.

use crate::app_model::time_control::TimeCommand;
use crate::app_model::words::thousands;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use egui::{Align2, RichText, Sense, TextWrapMode, WidgetText, vec2};

use super::rule_text;
use super::theme;
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::event_filter::contains_ignore_ascii_case;
use crate::app_model::state::AppState;
use crate::diagnostic::{Code, Diagnostic, Seq, Severity, SeverityCounts};
use crate::replay::Options;

/// The line above the groups: how many diagnostics and codes, or how many
/// the filter kept, each noun in the number it counts ("1 diagnostic, 1
/// code", not "1 diagnostics, 1 codes": issue 43, point 4).
fn summary_line(num_shown: usize, num_diagnostics: usize, num_codes: usize) -> String {
    use crate::app_model::words::count;
    if num_shown == num_diagnostics {
        format!(
            "{}, {}",
            count(num_diagnostics as u64, "diagnostic", "diagnostics"),
            count(num_codes as u64, "code", "codes")
        )
    } else {
        format!(
            "{} of {} {}",
            thousands(num_shown as u64),
            count(num_diagnostics as u64, "diagnostic", "diagnostics"),
            if num_shown == 1 { "matches" } else { "match" }
        )
    }
}

/// From this many diagnostics, groups are cached rather than rebuilt per
/// frame.
pub const LARGE: usize = 10_000;
/// Groups this small start open.
const OPEN_GROUP_MAX: usize = 100;
/// Width of the messageId column of a row.
const MESSAGE_ID_WIDTH: f32 = 90.0;

/// Draws the diagnostics panel.
pub fn diagnostics_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(doc) = state.doc() else {
        ui.weak("No stream open");
        return;
    };
    let mut filter = state.diagnostics_filter().to_owned();
    ui.horizontal(|ui| {
        let label = ui.label("Filter diagnostics");
        ui.add(
            egui::TextEdit::singleline(&mut filter)
                .hint_text("code, messageId or message")
                .desired_width(f32::INFINITY),
        )
        .labelled_by(label.id);
    });
    if filter != state.diagnostics_filter() {
        commands.push(Command::SetDiagnosticsFilter(filter));
    }
    let num_diagnostics = num_diagnostics(doc);
    if num_diagnostics == 0 {
        ui.weak("No diagnostics");
        return;
    }
    let groups = groups_for_frame(ui, doc, state.diagnostics_filter());
    let num_shown: usize = groups.iter().map(|g| g.members.len()).sum();
    ui.weak(summary_line(num_shown, num_diagnostics, groups.len()));
    ui.separator();
    let step = state.step();
    egui::ScrollArea::vertical()
        .auto_shrink(false)
        .show(ui, |ui| {
            for group in groups.iter() {
                group_ui(ui, doc, group, step, commands);
            }
        });
}

/// The diagnostics of one code that pass the filter.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The code.
    pub code: Code,
    /// Counts per severity (profiles change the severity of some codes, so
    /// one code can have several).
    pub counts: SeverityCounts,
    /// Positions in [`Doc::diagnostics`] order (the reader's, then the
    /// replay's).
    pub members: Vec<usize>,
}

impl Group {
    /// The worst severity in the group.
    pub fn worst(&self) -> Severity {
        self.counts.worst().unwrap_or(Severity::Info)
    }
}

/// Groups the diagnostics of `doc` that match `filter` by code, worst
/// severity first, then by code name.
pub fn group_diagnostics(doc: &Doc, filter: &str) -> Vec<Group> {
    let needle = filter.trim().to_ascii_lowercase();
    let mut by_code: BTreeMap<Code, Group> = BTreeMap::new();
    for (position, diagnostic) in doc.diagnostics().enumerate() {
        if !matches(diagnostic, needle.as_bytes()) {
            continue;
        }
        let group = by_code.entry(diagnostic.code).or_insert_with(|| Group {
            code: diagnostic.code,
            counts: SeverityCounts::default(),
            members: Vec::new(),
        });
        group.counts.add(diagnostic.severity);
        group.members.push(position);
    }
    let mut groups: Vec<Group> = by_code.into_values().collect();
    groups.sort_by_key(|g| (g.worst(), g.code.as_str()));
    groups
}

/// Whether a diagnostic's code, messageId or message contains `needle`
/// (lowercase), ignoring ASCII case.
fn matches(diagnostic: &Diagnostic, needle: &[u8]) -> bool {
    needle.is_empty()
        || contains_ignore_ascii_case(diagnostic.code.as_str().as_bytes(), needle)
        || diagnostic
            .message_id
            .as_deref()
            .is_some_and(|id| contains_ignore_ascii_case(id.as_bytes(), needle))
        || contains_ignore_ascii_case(diagnostic.message.as_bytes(), needle)
}

fn num_diagnostics(doc: &Doc) -> usize {
    doc.source.diagnostics.len() + doc.timeline.diagnostics().len() + doc.schema_findings.len()
}

/// The diagnostic at a position of [`Doc::diagnostics`], without walking it.
fn diagnostic_at(doc: &Doc, position: usize) -> Option<&Diagnostic> {
    let reader = &doc.source.diagnostics;
    match position.checked_sub(reader.len()) {
        None => reader.get(position),
        Some(i) => {
            let replay = doc.timeline.diagnostics();
            match i.checked_sub(replay.len()) {
                None => replay.get(i),
                // Then the schema folder's findings (issue 42).
                Some(j) => doc.schema_findings.get(j),
            }
        }
    }
}

/// What the cached groups were built from.
#[derive(Clone, Debug, PartialEq)]
struct CacheKey {
    path: PathBuf,
    session: Option<i64>,
    options: Options,
    num_diagnostics: usize,
    filter: String,
}

#[derive(Clone)]
struct CachedGroups {
    key: CacheKey,
    groups: Arc<Vec<Group>>,
}

/// The groups to draw: rebuilt for a small list, cached for a large one.
fn groups_for_frame(ui: &egui::Ui, doc: &Doc, filter: &str) -> Arc<Vec<Group>> {
    let num_diagnostics = num_diagnostics(doc);
    if num_diagnostics < LARGE {
        return Arc::new(group_diagnostics(doc, filter));
    }
    let key = CacheKey {
        path: doc.path.clone(),
        session: doc.session,
        // A profile switch keeps the count but changes severities.
        options: doc.options(),
        num_diagnostics,
        filter: filter.to_owned(),
    };
    // One slot: a new key replaces the old groups instead of piling up.
    let id = egui::Id::unique("diagnostics-groups");
    let cached: Option<CachedGroups> = ui.data(|d| d.get_temp(id));
    match cached {
        Some(cached) if cached.key == key => cached.groups,
        _ => {
            let groups = Arc::new(group_diagnostics(doc, filter));
            let entry = CachedGroups {
                key,
                groups: groups.clone(),
            };
            ui.data_mut(|d| d.insert_temp(id, entry));
            groups
        }
    }
}

/// One code: a collapsible header with the count in the severity's colour,
/// then its rows.
fn group_ui(ui: &mut egui::Ui, doc: &Doc, group: &Group, step: Seq, commands: &mut Vec<Command>) {
    let worst = group.worst();
    let color = theme::severity_color(ui.visuals(), worst);
    let title = RichText::new(format!(
        "{} {} ({})",
        theme::severity_symbol(worst),
        group.code,
        group.members.len()
    ))
    .color(color)
    .strong();
    let header = egui::CollapsingHeader::new(title)
        .id_salt(("diagnostics-group", group.code.as_str()))
        .default_open(group.members.len() <= OPEN_GROUP_MAX)
        .show(ui, |ui| {
            group_rule_ui(ui, group.code);
            rows_ui(ui, doc, &group.members, step, commands);
        });
    let mixed: Vec<String> = Severity::ALL
        .iter()
        .filter(|&&s| group.counts.get(s) > 0)
        .map(|&s| format!("{} {s}", group.counts.get(s)))
        .collect();
    header.header_response.on_hover_ui(|ui| {
        ui.label(format!("{}: {}", group.code, mixed.join(", ")));
        ui.separator();
        rule_text::code_hover_ui(ui, group.code);
    });
}

/// The rule behind a group's code, above its rows: its heading, and its
/// text, which a click folds away (remembered per code).
fn group_rule_ui(ui: &mut egui::Ui, code: Code) {
    let Some(rule) = rule_text::rule_of(code) else {
        ui.weak(format!("{code}: no rule in the reference"));
        return;
    };
    egui::CollapsingHeader::new(RichText::new(rule.heading()).weak())
        .id_salt(("diagnostics-rule", code.as_str()))
        .default_open(true)
        .show(ui, |ui| {
            ui.add(egui::Label::new(RichText::new(rule.plain_text()).weak()).wrap());
            ui.weak(format!("§{}", rule.section));
        });
}

/// The rows of a group, of fixed height: the rows above and below the
/// visible part are skipped as one block of space each.
fn rows_ui(
    ui: &mut egui::Ui,
    doc: &Doc,
    members: &[usize],
    step: Seq,
    commands: &mut Vec<Command>,
) {
    ui.spacing_mut().item_spacing.y = 0.0;
    let height = theme::ROW_HEIGHT;
    let width = ui.available_width();
    let top = ui.cursor().top();
    let clip = ui.clip_rect();
    let num_rows = members.len();
    let first = (((clip.top() - top) / height).floor().max(0.0) as usize).min(num_rows);
    let end =
        ((((clip.bottom() - top) / height).ceil().max(0.0) as usize) + 1).clamp(first, num_rows);
    if first > 0 {
        ui.allocate_space(vec2(width, first as f32 * height));
    }
    let last_seq = members
        .last()
        .and_then(|&p| diagnostic_at(doc, p))
        .map_or(Seq::START, |d| d.seq);
    let seq_width = text_width(ui, &last_seq.to_string()) + ui.spacing().item_spacing.x;
    for &position in &members[first..end] {
        if let Some(diagnostic) = diagnostic_at(doc, position) {
            row_ui(ui, diagnostic, step, seq_width, commands);
        }
    }
    if end < num_rows {
        ui.allocate_space(vec2(width, (num_rows - end) as f32 * height));
    }
}

/// One diagnostic: seq, messageId, message (cut, in full on hover).
fn row_ui(
    ui: &mut egui::Ui,
    diagnostic: &Diagnostic,
    step: Seq,
    seq_width: f32,
    commands: &mut Vec<Command>,
) {
    let width = ui.available_width();
    let (rect, response) = ui.allocate_exact_size(vec2(width, theme::ROW_HEIGHT), Sense::click());
    response
        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &diagnostic.message));
    let visuals = ui.visuals();
    if diagnostic.seq == step {
        ui.painter()
            .rect_filled(rect, 2.0, visuals.selection.bg_fill.gamma_multiply(0.6));
    } else if response.hovered() {
        ui.painter()
            .rect_filled(rect, 2.0, visuals.widgets.hovered.weak_bg_fill);
    }
    let text_color = visuals.text_color();
    let weak_color = visuals.weak_text_color();
    let gap = ui.spacing().item_spacing.x;
    let painter = ui.painter();
    let y = rect.center().y;
    painter.text(
        egui::pos2(rect.left() + seq_width - gap, y),
        Align2::RIGHT_CENTER,
        diagnostic.seq.to_string(),
        egui::TextStyle::Body.resolve(ui.style()),
        weak_color,
    );
    let mut x = rect.left() + seq_width + gap;
    let id = diagnostic.message_id.as_deref().unwrap_or("");
    let id_galley = truncated(ui, id, MESSAGE_ID_WIDTH - gap);
    let id_elided = id_galley.elided;
    painter.galley(
        egui::pos2(x, y - id_galley.size().y / 2.0),
        id_galley,
        text_color,
    );
    x += MESSAGE_ID_WIDTH;
    let message_galley = truncated(ui, &diagnostic.message, rect.right() - x);
    let message_elided = message_galley.elided;
    painter.galley(
        egui::pos2(x, y - message_galley.size().y / 2.0),
        message_galley,
        text_color,
    );
    let mut response = response;
    if id_elided || message_elided {
        response = response.on_hover_ui(|ui| {
            if let Some(id) = &diagnostic.message_id {
                ui.label(format!("messageId {id}"));
            }
            ui.label(&diagnostic.message);
        });
    }
    if response.clicked() {
        // The inspector follows the event stepped to (issue 13.1).
        commands.push(Command::Time(TimeCommand::Set(diagnostic.seq)));
    }
}

fn truncated(ui: &egui::Ui, text: &str, width: f32) -> Arc<egui::Galley> {
    WidgetText::from(text).into_galley(
        ui,
        Some(TextWrapMode::Truncate),
        width.max(0.0),
        egui::TextStyle::Body,
    )
}

fn text_width(ui: &egui::Ui, text: &str) -> f32 {
    truncated(ui, text, f32::INFINITY).size().x
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;

    #[test]
    fn the_summary_line_counts_in_the_right_number() {
        // Issue 43, point 4: "1 diagnostics, 1 codes".
        assert_eq!(super::summary_line(1, 1, 1), "1 diagnostic, 1 code");
        assert_eq!(super::summary_line(3, 3, 2), "3 diagnostics, 2 codes");
        assert_eq!(
            super::summary_line(1, 1_200, 4),
            "1 of 1,200 diagnostics matches"
        );
        assert_eq!(super::summary_line(2, 3, 2), "2 of 3 diagnostics match");
    }

    use crate::ui::test_harness::panel_harness;
    use egui_kittest::kittest::Queryable;

    use super::*;
    use crate::app_model::test_support::{doc_of, state_of};

    const STREAM: &[&str] = &[
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a-1","activityType":"search","content":{"found":0}}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"a-1","activityType":"search","content":{"found":1},"replace":false}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"ghost","activityType":"search","patch":[{"op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"a-1","activityType":"search","patch":[{"op":"replace","path":"/missing/x","value":1}]}"#,
        r#"{"type":"ACTIVITY_DELTA","messageId":"phantom","activityType":"search","patch":[{"op":"add","path":"/a","value":1}]}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#,
    ];

    fn summary(groups: &[Group]) -> Vec<(&'static str, Vec<u64>)> {
        let doc = doc_of(STREAM);
        groups
            .iter()
            .map(|g| {
                let seqs = g
                    .members
                    .iter()
                    .map(|&p| diagnostic_at(&doc, p).map_or(0, |d| d.seq.get()))
                    .collect();
                (g.code.as_str(), seqs)
            })
            .collect()
    }

    #[test]
    fn groups_by_code_worst_first() {
        let doc = doc_of(STREAM);
        let groups = group_diagnostics(&doc, "");
        assert_eq!(
            summary(&groups),
            [
                ("activity.delta.unknown-target", vec![4, 6]),
                ("activity.patch.failed", vec![5]),
                ("activity.snapshot.declined", vec![3]),
            ]
        );
        assert_eq!(groups[0].worst(), Severity::Warning);
        assert_eq!(groups[2].worst(), Severity::Info);
    }

    #[test]
    fn the_filter_matches_code_message_id_or_message_ignoring_case() {
        let doc = doc_of(STREAM);
        let by_code = group_diagnostics(&doc, "PATCH.failed");
        assert_eq!(summary(&by_code), [("activity.patch.failed", vec![5])]);
        let by_id = group_diagnostics(&doc, "phantom");
        assert_eq!(
            summary(&by_id),
            [("activity.delta.unknown-target", vec![6])]
        );
        let by_message = group_diagnostics(&doc, "Content and type kept");
        assert_eq!(
            summary(&by_message),
            [("activity.snapshot.declined", vec![3])]
        );
        assert!(group_diagnostics(&doc, "nothing like this").is_empty());
    }

    fn harness(state: AppState) -> Harness<'static, AppState> {
        panel_harness(diagnostics_ui, egui::vec2(420.0, 400.0), state)
    }

    #[test]
    fn clicking_a_diagnostic_steps_to_it_and_selects_its_message() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label_contains(r#"for "ghost""#).click();
        harness.run();
        assert_eq!(harness.state().step(), Seq::new(4));
        assert_eq!(harness.state().selected_activity(), Some("ghost"));
    }

    #[test]
    fn typing_a_filter_sets_it() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("Filter diagnostics").focus();
        harness
            .get_by_label("Filter diagnostics")
            .type_text("phantom");
        harness.run();
        assert_eq!(harness.state().diagnostics_filter(), "phantom");
        // "matches": one diagnostic matches (issue 43, point 4).
        harness.get_by_label("1 of 4 diagnostics matches");
    }

    #[test]
    fn large_lists_are_grouped_once() {
        let mut lines = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()];
        for i in 0..LARGE {
            lines.push(format!(
                r#"{{"type":"ACTIVITY_DELTA","messageId":"ghost-{i}","activityType":"t","patch":[]}}"#
            ));
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let doc = doc_of(&lines);
        assert!(num_diagnostics(&doc) >= LARGE);
        let ctx = egui::Context::default();
        let mut frames = Vec::new();
        for filter in ["", "", "ghost-1"] {
            let mut output = ctx.run_ui(Default::default(), |ui| {
                frames.push(groups_for_frame(ui, &doc, filter));
            });
            output.textures_delta.clear();
        }
        assert!(Arc::ptr_eq(&frames[0], &frames[1]), "regrouped");
        assert!(
            !Arc::ptr_eq(&frames[1], &frames[2]),
            "a new filter regroups"
        );
        assert_eq!(frames[2][0].members.len(), 1111);
    }
}
