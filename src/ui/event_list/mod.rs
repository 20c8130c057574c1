//! The event list: a filter bar, then one row per event that passes the
//! filter (seq, arrival time, type, `messageId`, a one-line summary, the
//! worst diagnostic).
//!
//! A frame only touches the rows on screen: the table is virtualized, and
//! each visible row is parsed, summarized and looked up in the sorted
//! diagnostics as it is drawn. The filter runs over the whole stream, but
//! only when it changes ([`crate::app_model::event_filter::filter_rows`]).
//!
//! This file draws the table; the filter bar is in [`self::filter`], the one-line summaries in [`self::summary`].

mod filter;
mod summary;

use crate::app_model::time_control::TimeCommand;
use egui::{Align, Label, Layout, RichText};
use egui_extras::{Column, TableBuilder};

use self::filter::filter_bar_ui;
use super::theme;
use crate::app_model::command::Command;
use crate::app_model::document::Doc;
use crate::app_model::state::AppState;
use crate::diagnostic::{Diagnostic, Seq};
use crate::protocol::{ParseOutcome, parse_event};
use crate::replay::Effect;
use crate::timeline::EventKind;

pub use self::summary::summary;

/// The id of the filter's text field, which Ctrl+F gives the keyboard
/// (issue 43, point 2).
pub fn filter_text_id() -> egui::Id {
    egui::Id::unique("event-list-filter-text")
}

/// Draws the event list.
pub fn event_list_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Vec<Command>) {
    let Some(doc) = state.doc() else {
        ui.weak("No stream open");
        return;
    };
    filter_bar_ui(ui, doc, state, commands);
    ui.separator();
    table_ui(ui, doc, state, commands);
}

/// The table of events: only the visible rows are built.
fn table_ui(ui: &mut egui::Ui, doc: &Doc, state: &AppState, commands: &mut Vec<Command>) {
    let rows = state.event_rows();
    let step = state.step();
    // Scroll to the current step when it (or the rows) changed since the
    // last frame, not every frame: the user may scroll away from it.
    let memory_id = ui.scope_id().with("event-list-scrolled-to");
    let now = (step, rows.len(), rows.first().copied());
    let last: Option<(Seq, usize, Option<Seq>)> = ui.data(|d| d.get_temp(memory_id));
    let current_row = rows.binary_search(&step);
    let scroll_to = (last != Some(now)).then(|| {
        let row = current_row.unwrap_or_else(|next| next);
        let last_row = last.and_then(|(s, ..)| rows.binary_search(&s).ok());
        // A step to the next row scrolls just enough; a jump centres it.
        let align = match last_row {
            Some(last_row) if last_row.abs_diff(row) <= 1 => None,
            _ => Some(Align::Center),
        };
        (row, align)
    });
    ui.data_mut(|d| d.insert_temp(memory_id, now));

    let seq_width = text_width(ui, &doc.num_events().to_string());
    let last_millis = doc.arrival_nanos.last().map_or(0.0, |&n| millis(n));
    let millis_width = text_width(ui, &format!("{last_millis:.0}"));
    // The type and messageId columns take a share of the room the fixed
    // columns leave, up to what they need; the summary takes the rest
    // (issue 13, point 5).
    // The type column is as wide as the widest type the stream holds, as
    // far as the messageId and summary keep a little room (issue 43: at
    // 1024×700 "ACTIVITY_SNA…" was cut); a name still cut shows whole on
    // hover.
    let room = (ui.available_width() - seq_width - millis_width - 14.0).max(0.0);
    let type_width = widest_type_width(ui, doc).clamp(60.0, (room - 100.0).max(60.0));
    let id_width = ((room - type_width) * 0.35).clamp(40.0, 90.0);
    // A panel of another width (the window resized, the splitter dragged)
    // lays its columns out afresh: the widths kept from a wider one cut
    // the types (issue 43).
    let width_id = egui::Id::unique("event_list_width");
    let width = ui.available_width().round();
    let relayout = ui.data(|d| d.get_temp::<f32>(width_id)) != Some(width);
    if relayout {
        ui.data_mut(|d| d.insert_temp(width_id, width));
    }
    let mut builder = TableBuilder::new(ui)
        .id_salt("event-table")
        .striped(true)
        .resizable(true)
        .sense(egui::Sense::click())
        .cell_layout(Layout::left_to_right(Align::Center))
        .column(Column::exact(seq_width))
        .column(Column::exact(millis_width))
        // Wide enough for TEXT_MESSAGE_CONTENT next to TEXT_MESSAGE_CHUNK.
        .column(Column::initial(type_width).at_least(40.0).clip(true))
        .column(Column::initial(id_width).at_least(30.0).clip(true))
        .column(Column::remainder().at_least(60.0).clip(true))
        .column(Column::exact(14.0));
    if let Some((row, align)) = scroll_to {
        builder = builder.scroll_to_row(row, align);
    }
    if relayout {
        builder.reset();
    }
    let invented = doc.timing.is_invented();
    let mut clicked = None;
    builder
        .header(theme::ROW_HEIGHT, |mut header| {
            let ms_hover = if invented {
                format!(
                    "Arrival, in milliseconds from the first event. {}",
                    doc.timing.explanation()
                )
            } else {
                "Arrival, in milliseconds from the first event".to_owned()
            };
            for (title, hover) in [
                ("seq", "The event's position in the stream"),
                ("ms", ms_hover.as_str()),
                ("type", "The event's type"),
                ("messageId", "The event's messageId"),
                ("summary", "What the event carries"),
                ("", "The worst diagnostic of the event"),
            ] {
                header.col(|ui| {
                    if invented && title == "ms" {
                        // Made-up times (issue 13, point 10).
                        ui.colored_label(ui.visuals().warn_fg_color, RichText::new("ms*").strong())
                            .on_hover_text(hover);
                    } else {
                        ui.strong(title).on_hover_text(hover);
                    }
                });
            }
        })
        .body(|body| {
            body.rows(theme::ROW_HEIGHT, rows.len(), |mut row| {
                let seq = rows[row.index()];
                let Some(raw) = doc.raw(seq) else { return };
                let raw: &[u8] = &raw;
                let parsed = parse_event(raw);
                let kind = doc.timeline.index().kind(seq);
                let not_applied = seq.index().is_some_and(|i| {
                    doc.timeline
                        .effects()
                        .get(i)
                        .is_some_and(|e| e.effect == Effect::NotApplied)
                });
                let text = |text: String| {
                    let text = RichText::new(text);
                    if not_applied {
                        text.weak().strikethrough()
                    } else {
                        text
                    }
                };
                row.set_selected(seq == step);
                row.col(|ui| {
                    right_aligned_label(ui, text(seq.to_string()));
                });
                row.col(|ui| {
                    let nanos = seq.index().and_then(|i| doc.arrival_nanos.get(i));
                    let shown = nanos.map_or(String::new(), |&n| format!("{:.0}", millis(n)));
                    // Weak, not italic: the column is as wide as upright digits.
                    let shown = if invented {
                        text(shown).weak()
                    } else {
                        text(shown)
                    };
                    right_aligned_label(ui, shown);
                });
                row.col(|ui| {
                    let name = kind.map_or("?", EventKind::name);
                    ui.add(
                        Label::new(text(name.to_owned()))
                            .selectable(false)
                            .truncate(),
                    );
                });
                let message_id = message_id_of(&parsed);
                row.col(|ui| {
                    let id = message_id.unwrap_or_default().to_owned();
                    ui.add(Label::new(text(id)).selectable(false).truncate());
                });
                row.col(|ui| {
                    // Issue 41: a step the edits changed says so.
                    if state.whatif().is_edited(seq) {
                        super::whatif::edited_marker_ui(ui);
                    }
                    let summary = summary(&parsed, raw);
                    ui.add(Label::new(text(summary)).selectable(false).truncate());
                });
                row.col(|ui| severity_icon_ui(ui, diagnostics_at(doc, seq)));
                let mut response = row.response();
                if not_applied {
                    let why = "not applied: after the fatal error (R43)";
                    response = super::rule_text::on_hover_cited(response, why, Some(why));
                }
                response.context_menu(|ui| super::whatif::event_menu_ui(ui, seq, commands));
                if response.clicked() {
                    clicked = Some(seq);
                    // The inspector follows the event stepped to (issue
                    // 13.1): nothing to pin.
                    commands.push(Command::Time(TimeCommand::Set(seq)));
                }
            });
        });
    if let Some(seq) = clicked {
        // The clicked row is on screen already: do not scroll to it.
        ui.data_mut(|d| d.insert_temp(memory_id, (seq, rows.len(), rows.first().copied())));
    }
}

fn right_aligned_label(ui: &mut egui::Ui, text: RichText) {
    ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
        ui.add(Label::new(text).selectable(false));
    });
}

/// The icon of the worst of `diagnostics`, with all of them on hover.
fn severity_icon_ui(ui: &mut egui::Ui, diagnostics: &[Diagnostic]) {
    let Some(worst) = diagnostics.iter().map(|d| d.severity).min() else {
        return;
    };
    let color = theme::severity_color(ui.visuals(), worst);
    ui.add(
        Label::new(
            RichText::new(theme::severity_symbol(worst))
                .color(color)
                .strong(),
        )
        .selectable(false),
    )
    .on_hover_ui(|ui| {
        for diagnostic in diagnostics {
            ui.label(format!(
                "{} {}: {}",
                diagnostic.severity, diagnostic.code, diagnostic.message
            ));
            super::rule_text::rule_heading_line_ui(ui, diagnostic.code);
        }
    });
}

/// The width of the widest name of a type the stream holds.
fn widest_type_width(ui: &egui::Ui, doc: &Doc) -> f32 {
    let last = Seq::new(doc.num_events());
    doc.timeline
        .index()
        .counts(Seq::new(1)..=last)
        .iter()
        .enumerate()
        .filter(|&(_, &count)| count > 0)
        .filter_map(|(index, _)| EventKind::from_index(index))
        .map(|kind| text_width(ui, kind.name()))
        .fold(0.0, f32::max)
}

fn text_width(ui: &egui::Ui, text: &str) -> f32 {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let galley = ui.fonts_mut(|f| f.layout_no_wrap(text.to_owned(), font, egui::Color32::WHITE));
    galley.size().x + 2.0 * ui.spacing().item_spacing.x
}

fn millis(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// The replay's diagnostics of one event (the timeline's are sorted by seq).
fn diagnostics_at(doc: &Doc, seq: Seq) -> &[Diagnostic] {
    let all = doc.timeline.diagnostics();
    let start = all.partition_point(|d| d.seq < seq);
    let len = all[start..].partition_point(|d| d.seq <= seq);
    &all[start..start + len]
}

/// The `messageId` member of a parsed event, where its type has one.
fn message_id_of(parsed: &ParseOutcome) -> Option<&str> {
    match parsed {
        ParseOutcome::Event { event, .. } => event.message_id_member(),
        ParseOutcome::Malformed { message_id, .. } => message_id.as_deref(),
        ParseOutcome::UnknownType { .. } | ParseOutcome::Unparseable { .. } => None,
    }
}

// `EventFilter::kinds` is a `BTreeSet<EventKind>`, which needs an order.
#[cfg(test)]
pub(crate) mod tests {
    use egui_kittest::Harness;

    use crate::ui::test_harness::panel_harness;
    use egui_kittest::kittest::Queryable;

    use super::*;
    use crate::app_model::test_support::{STREAM, state_of};
    use crate::diagnostic::Severity;

    /// A harness drawing the event list over `state`, applying its commands.
    pub(crate) fn harness(state: AppState) -> Harness<'static, AppState> {
        panel_harness(event_list_ui, egui::vec2(640.0, 400.0), state)
    }

    #[test]
    fn clicking_an_activity_row_steps_to_it_and_selects_the_activity() {
        let mut harness = harness(state_of(STREAM));
        harness.run();
        harness.get_by_label("ghost").click();
        harness.run();
        assert_eq!(harness.state().step(), Seq::new(4));
        assert_eq!(harness.state().selected_activity(), Some("ghost"));
    }

    #[test]
    fn clicking_another_row_keeps_the_selected_activity() {
        let mut state = state_of(STREAM);
        state.apply(vec![Command::SelectActivity(Some("a-1".into()))]);
        let mut harness = harness(state);
        harness.run();
        harness.get_by_label(r#""Hello Lisbon""#).click();
        harness.run();
        assert_eq!(harness.state().step(), Seq::new(6));
        assert_eq!(harness.state().selected_activity(), Some("a-1"));
    }

    #[test]
    fn severity_symbols_render_in_the_default_fonts() {
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(Default::default(), |_| {});
        output.textures_delta.clear();
        let font = egui::FontId::proportional(14.0);
        for severity in Severity::ALL {
            let symbol = theme::severity_symbol(severity);
            assert!(
                ctx.fonts_mut(|f| f.has_glyphs(&font, symbol)),
                "{symbol:?} ({severity}) has no glyph in egui's default fonts"
            );
        }
    }
}
