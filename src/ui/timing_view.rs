//! The Timing tab (issue 17, point 3): the runs, steps, messages,
//! reasoning, tool calls and activities as bars on the stream's time axis
//! (a waterfall, drawn with `egui_plot`), the cursor's time marked, the
//! stalls shaded, and the figures per run beside it. A click on a bar goes
//! to its first step.
//!
//! The figures are the engine's ([`TimingReport`], what `agui-replay
//! timing` prints), computed once per stream, length and threshold, not
//! while drawing a frame.

use egui::{Color32, RichText, Ui};
use egui_plot::{Bar, BarChart, Plot, PlotPoint, PlotTransform, VLine};

use crate::app_model::state::AppState;

use crate::app_model::command::Command;

use crate::app_model::document::Doc;

use crate::app_model::time_control::TimeCommand;
use crate::diagnostic::Seq;
use crate::timing::{
    Clock, DEFAULT_STALL_AFTER_NANOS, RunFigures, SpanKind, TimingReport, format_nanos,
};

/// The most bars drawn; a longer stream's figures still count them all.
pub const MAX_BARS: usize = 2_000;

/// Bars labelled in the plot up to this many (more would overlap).
const MAX_LABELS: usize = 80;

/// The width of the figures column.
const FIGURES_WIDTH: f32 = 320.0;

/// From this width on the figures show beside the waterfall, below it
/// before.
const SIDE_BY_SIDE_WIDTH: f32 = 760.0;

/// The Timing tab's own state: the threshold set, and the report of the
/// stream shown.
pub struct TimingView {
    /// The stall threshold (T1), in seconds.
    pub stall_after_secs: f64,
    report: Option<(Key, Clock, TimingReport)>,
    /// Where the last frame drew the plot (for the tests' clicks).
    transform: Option<PlotTransform>,
}

impl Default for TimingView {
    fn default() -> Self {
        Self {
            stall_after_secs: DEFAULT_STALL_AFTER_NANOS as f64 / 1e9,
            report: None,
            transform: None,
        }
    }
}

/// What a report is of: the file, the session, how many events, the
/// threshold.
type Key = (std::path::PathBuf, Option<i64>, usize, u64);

impl TimingView {
    /// The report of the document shown (built when the stream, its length
    /// or the threshold changed).
    pub fn report_of(&mut self, doc: &Doc) -> &TimingReport {
        let stall_after = (self.stall_after_secs.max(0.0) * 1e9).round() as u64;
        let key = (
            doc.path.clone(),
            doc.session,
            doc.timeline.len(),
            stall_after,
        );
        if self.report.as_ref().is_none_or(|(k, _, _)| *k != key) {
            let clock = clock_of(doc);
            let report = TimingReport::of(doc.timeline.events(), &clock, stall_after);
            self.report = Some((key, clock, report));
        }
        &self.report.as_ref().expect("just built").2
    }

    /// The screen position of the middle of bar `index` (of the report's
    /// spans) in the last frame, if it was drawn.
    pub fn bar_center(&self, index: usize) -> Option<egui::Pos2> {
        let (_, _, report) = self.report.as_ref()?;
        let span = report.spans.get(index).filter(|_| index < MAX_BARS)?;
        let transform = self.transform.as_ref()?;
        let middle = (span.start_nanos + span.end_nanos) as f64 / 2e9;
        Some(transform.position_from_point(&PlotPoint::new(middle, row_y(index))))
    }
}

/// The clock of a document: a recording's arrival times (an imported
/// session's derived from timestamps), else the events' timestamps.
fn clock_of(doc: &Doc) -> Clock {
    match &doc.source.session {
        Some(session) => Clock::from_arrivals(
            doc.arrival_nanos.clone(),
            doc.timeline.events(),
            session.source.starts_with("import"),
        ),
        None => Clock::from_timestamps(doc.timeline.events()),
    }
}

/// Bar `index`'s row: the first at the top.
fn row_y(index: usize) -> f64 {
    -(index as f64)
}

fn kind_color(kind: SpanKind, dark: bool) -> Color32 {
    let (r, g, b) = match kind {
        SpanKind::Run => (0x7a, 0x86, 0x99),
        SpanKind::Step => (0x4c, 0x9a, 0x6a),
        SpanKind::Message => (0x3b, 0x82, 0xd6),
        SpanKind::Reasoning => (0x9b, 0x6b, 0xd0),
        SpanKind::ToolCall => (0xd9, 0x8a, 0x1f),
        SpanKind::Activity => (0x2a, 0xa8, 0xa8),
    };
    let color = Color32::from_rgb(r, g, b);
    if dark {
        color
    } else {
        color.gamma_multiply(0.9)
    }
}

/// The Timing tab.
pub fn timing_ui(
    ui: &mut Ui,
    state: &AppState,
    view: &mut TimingView,
    commands: &mut Vec<Command>,
) {
    let Some(doc) = state.doc() else {
        ui.weak("No stream open");
        return;
    };
    ui.horizontal(|ui| {
        let label = ui.label("Stall after");
        ui.add(
            egui::DragValue::new(&mut view.stall_after_secs)
                .range(0.0..=3600.0)
                .speed(0.1)
                .suffix(" s"),
        )
        .labelled_by(label.id)
        .on_hover_text(
            "A gap between two events longer than this is a stall (stream.stall, T1); \
             invented times never stall",
        );
    });
    let report = view.report_of(doc).clone();
    let invented = report.num_invented_times > 0;
    let times = RichText::new(format!(
        "{} events over {}: {}",
        report.events,
        format_nanos(report.duration_nanos),
        report.times.describe()
    ));
    ui.label(if invented {
        times.color(ui.visuals().warn_fg_color)
    } else {
        times
    });
    ui.separator();
    let step = state.step();
    let (cursor_nanos, stall_ranges) = match &view.report {
        Some((_, clock, _)) => (
            step.index().map_or(0, |i| clock.nanos(i)),
            report
                .stalls
                .iter()
                .filter_map(|s| {
                    let secs = |seq: Seq| seq.index().map(|i| clock.nanos(i) as f64 / 1e9);
                    Some(secs(s.after_seq)?..=secs(s.seq)?)
                })
                .collect(),
        ),
        None => (0, Vec::new()),
    };
    let width = ui.available_width();
    let figures = |ui: &mut Ui, commands: &mut Vec<Command>| {
        egui::ScrollArea::vertical()
            .id_salt("timing-figures")
            .auto_shrink(false)
            .show(ui, |ui| figures_ui(ui, &report, commands));
    };
    if width >= SIDE_BY_SIDE_WIDTH {
        // The figures beside the waterfall.
        ui.horizontal_top(|ui| {
            let plot_width = ui.available_width() - FIGURES_WIDTH - 12.0;
            ui.allocate_ui(egui::vec2(plot_width, ui.available_height()), |ui| {
                waterfall_ui(
                    ui,
                    &report,
                    (step, cursor_nanos),
                    stall_ranges,
                    view,
                    commands,
                );
            });
            ui.separator();
            ui.vertical(|ui| {
                ui.set_width(FIGURES_WIDTH);
                figures(ui, commands);
            });
        });
    } else {
        // Narrow: the figures below it.
        let plot_height = (ui.available_height() * 0.6).max(160.0);
        ui.allocate_ui(egui::vec2(width, plot_height), |ui| {
            waterfall_ui(
                ui,
                &report,
                (step, cursor_nanos),
                stall_ranges,
                view,
                commands,
            );
        });
        ui.separator();
        figures(ui, commands);
    }
}

fn waterfall_ui(
    ui: &mut Ui,
    report: &TimingReport,
    (step, cursor_nanos): (Seq, u64),
    stall_ranges: Vec<std::ops::RangeInclusive<f64>>,
    view: &mut TimingView,
    commands: &mut Vec<Command>,
) {
    let dark = ui.visuals().dark_mode;
    let spans = &report.spans[..report.spans.len().min(MAX_BARS)];
    if report.spans.len() > MAX_BARS {
        ui.weak(format!(
            "The first {MAX_BARS} of {} bars are drawn",
            report.spans.len()
        ));
    }
    let total_secs = (report.duration_nanos as f64 / 1e9).max(0.001);
    // A bar of one event still shows.
    let min_secs = total_secs / 400.0;
    let plot = Plot::new("timing-waterfall")
        .show_y(false)
        .show_axes([true, false])
        .y_axis_min_width(0.0)
        .allow_scroll(false)
        .include_y(0.5)
        .include_y(row_y(spans.len().max(1)) + 0.5)
        .include_x(0.0)
        .include_x(total_secs)
        .show_grid([true, false])
        .x_axis_label("seconds");
    let response = plot.show(ui, |plot_ui| {
        for kind in SpanKind::ALL {
            let bars: Vec<Bar> = spans
                .iter()
                .enumerate()
                .filter(|(_, s)| s.kind == kind)
                .map(|(index, span)| {
                    let start = span.start_nanos as f64 / 1e9;
                    let length = (span.duration_nanos() as f64 / 1e9).max(min_secs);
                    let color = kind_color(kind, dark);
                    Bar::new(row_y(index), length)
                        .base_offset(start)
                        .width(0.7)
                        .fill(if span.invented {
                            color.gamma_multiply(0.4)
                        } else {
                            color
                        })
                        .name(bar_label(span))
                        .horizontal()
                })
                .collect();
            if !bars.is_empty() {
                plot_ui.bar_chart(
                    BarChart::new(kind.as_str(), bars)
                        .color(kind_color(kind, dark))
                        .element_formatter(Box::new(|bar, _| bar.name.clone())),
                );
            }
        }
        if spans.len() <= MAX_LABELS {
            labels_ui(plot_ui, spans, min_secs, dark);
        }
        for range in stall_ranges {
            plot_ui.span(
                egui_plot::Span::new("stall", range)
                    .fill(ui_stall_color(dark))
                    .border_width(0.0),
            );
        }
        plot_ui.vline(
            VLine::new(format!("cursor (step {step})"), cursor_nanos as f64 / 1e9)
                .stroke(egui::Stroke::new(1.5, Color32::from_rgb(0xe0, 0x40, 0x40))),
        );
        plot_ui.pointer_coordinate()
    });
    view.transform = Some(response.transform);
    if response.response.clicked()
        && let Some(pointer) = response.inner
        && let Some(span) = bar_at(spans, pointer, min_secs)
    {
        commands.push(Command::Time(TimeCommand::Set(span)));
    }
}

/// Room between a bar and its label, in points.
const LABEL_GAP: f32 = 4.0;

/// Where a bar's label goes, in its own row: after the bar, before it, or
/// inside it, whichever the plot holds whole (issue 43: above the bar, a
/// label overlapped the bar of the row above, at 2.05:1 in dark, and the
/// plot's right edge cut the last ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelPlace {
    /// Right of the bar's end.
    After,
    /// Left of the bar's start.
    Before,
    /// Over the bar, from its start.
    Inside,
}

/// Where a label `width` points wide goes beside a bar drawn from `start`
/// to `end` in a plot from `left` to `right` (screen points).
pub fn label_place(start: f32, end: f32, width: f32, left: f32, right: f32) -> LabelPlace {
    if end + LABEL_GAP + width <= right {
        LabelPlace::After
    } else if start - LABEL_GAP - width >= left {
        LabelPlace::Before
    } else {
        LabelPlace::Inside
    }
}

/// Each bar's short label in its own row, placed by [`label_place`] with
/// the plot's transform; none when a row is lower than the text.
fn labels_ui(
    plot_ui: &mut egui_plot::PlotUi<'_>,
    spans: &[crate::timing::Span],
    min_secs: f64,
    dark: bool,
) {
    let transform = *plot_ui.transform();
    let frame = *transform.frame();
    let font = egui::TextStyle::Small.resolve(&plot_ui.ctx().global_style());
    let row_height = transform.dpos_dvalue()[1].abs() as f32;
    let secs_per_point = transform.dvalue_dpos()[0].abs();
    let gap_secs = f64::from(LABEL_GAP) * secs_per_point;
    for (index, span) in spans.iter().enumerate() {
        let text = short_label(span);
        let size = plot_ui.ctx().fonts_mut(|fonts| {
            fonts
                .layout_no_wrap(text.clone(), font.clone(), Color32::WHITE)
                .size()
        });
        if size.y > row_height {
            return;
        }
        let start = span.start_nanos as f64 / 1e9;
        let end = start + (span.duration_nanos() as f64 / 1e9).max(min_secs);
        let place = label_place(
            transform.position_from_point_x(start),
            transform.position_from_point_x(end),
            size.x,
            frame.left(),
            frame.right(),
        );
        let y = row_y(index);
        let (at, anchor, color) = match place {
            LabelPlace::After => (end + gap_secs, egui::Align2::LEFT_CENTER, None),
            LabelPlace::Before => (start - gap_secs, egui::Align2::RIGHT_CENTER, None),
            LabelPlace::Inside => (
                start + gap_secs,
                egui::Align2::LEFT_CENTER,
                Some(super::theme::text_color_on(kind_color(span.kind, dark))),
            ),
        };
        let mut label =
            egui_plot::Text::new("", PlotPoint::new(at, y), RichText::new(text).small())
                .anchor(anchor)
                .allow_hover(false);
        if let Some(color) = color {
            label = label.color(color);
        }
        plot_ui.text(label);
    }
}

fn ui_stall_color(dark: bool) -> Color32 {
    if dark {
        Color32::from_rgba_unmultiplied(0xff, 0x60, 0x60, 40)
    } else {
        Color32::from_rgba_unmultiplied(0xd0, 0x20, 0x20, 40)
    }
}

/// The first step of the bar under `pointer`, if any.
fn bar_at(spans: &[crate::timing::Span], pointer: PlotPoint, min_secs: f64) -> Option<Seq> {
    let index = usize::try_from((-pointer.y).round() as i64).ok()?;
    let span = spans.get(index)?;
    if (pointer.y - row_y(index)).abs() > 0.4 {
        return None;
    }
    let start = span.start_nanos as f64 / 1e9;
    let end = (span.end_nanos as f64 / 1e9).max(start + min_secs);
    (start - min_secs..=end + min_secs)
        .contains(&pointer.x)
        .then_some(span.first_seq)
}

fn short_label(span: &crate::timing::Span) -> String {
    let id = span.name.as_deref().or(span.id.as_deref()).unwrap_or("");
    format!("{} {id}", span.kind.as_str())
}

fn bar_label(span: &crate::timing::Span) -> String {
    let mut label = format!(
        "{}\nseq {}-{}, {} events\n{} from {}",
        short_label(span),
        span.first_seq,
        span.last_seq,
        span.num_events,
        format_nanos(span.duration_nanos()),
        format_nanos(span.start_nanos),
    );
    if span.invented {
        label.push_str("\n(invented time)");
    }
    if !span.closed && matches!(span.kind, SpanKind::Run | SpanKind::Step) {
        label.push_str("\n(never closed)");
    }
    label
}

fn figures_ui(ui: &mut Ui, report: &TimingReport, commands: &mut Vec<Command>) {
    for run in &report.runs {
        run_ui(ui, run, commands);
        ui.separator();
    }
    ui.strong(format!(
        "Stalls over {}: {}",
        format_nanos(report.stall_after_nanos),
        report.stalls.len()
    ));
    for stall in &report.stalls {
        let text = format!(
            "seq {} to {}: {}",
            stall.after_seq,
            stall.seq,
            format_nanos(stall.gap_nanos)
        );
        if ui
            .link(text)
            .on_hover_text("stream.stall (T1): go to the event that ended the wait")
            .clicked()
        {
            commands.push(Command::Time(TimeCommand::Set(stall.seq)));
        }
    }
    if report.num_invented_times > 0 {
        ui.weak(format!(
            "{} of {} events have invented times (~): they never stall",
            report.num_invented_times, report.events
        ));
    }
}

fn time_text(nanos: u64, invented: bool) -> String {
    if invented {
        format!("~{} (invented)", format_nanos(nanos))
    } else {
        format_nanos(nanos)
    }
}

fn run_ui(ui: &mut Ui, run: &RunFigures, commands: &mut Vec<Command>) {
    let invented = run.num_invented_times > 0;
    let title = format!(
        "Run {} {}",
        run.run,
        run.run_id.as_deref().unwrap_or("(no RUN_STARTED)")
    );
    if ui.link(RichText::new(title).strong()).clicked() {
        commands.push(Command::Time(TimeCommand::Set(run.first_seq)));
    }
    egui::Grid::new(("timing-run", run.run))
        .num_columns(2)
        .show(ui, |ui| {
            let row = |ui: &mut Ui, name: &str, value: String| {
                ui.label(name);
                ui.label(value);
                ui.end_row();
            };
            row(
                ui,
                "events",
                format!(
                    "{} (seq {}-{})",
                    run.num_events, run.first_seq, run.last_seq
                ),
            );
            row(ui, "duration", time_text(run.duration_nanos, invented));
            row(
                ui,
                "to first event",
                time_text(run.to_first_event_nanos, invented),
            );
            for (name, mark) in [
                ("to first text", run.to_first_text),
                ("to first activity", run.to_first_activity),
            ] {
                row(
                    ui,
                    name,
                    mark.map_or_else(
                        || "-".to_owned(),
                        |m| format!("{} (seq {})", time_text(m.nanos, m.invented), m.seq),
                    ),
                );
            }
            row(
                ui,
                "longest gap",
                run.longest_gap.map_or_else(
                    || "-".to_owned(),
                    |g| {
                        format!(
                            "{} (seq {} to {})",
                            time_text(g.nanos, g.invented),
                            g.after_seq,
                            g.seq
                        )
                    },
                ),
            );
            row(
                ui,
                "events per second",
                run.events_per_second
                    .map_or_else(|| "-".to_owned(), |n| format!("{n}")),
            );
        });
    for tool in &run.tool_calls {
        let result = tool.to_result_nanos.map_or_else(String::new, |n| {
            format!(", result after {}", format_nanos(n))
        });
        let text = format!(
            "tool call {}: {}{result}",
            tool.name
                .as_deref()
                .or(tool.tool_call_id.as_deref())
                .unwrap_or("-"),
            time_text(tool.duration_nanos, tool.invented),
        );
        if ui.link(text).clicked() {
            commands.push(Command::Time(TimeCommand::Set(tool.first_seq)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::theme;

    // Issue 43: a label goes where the plot holds it whole, in its bar's row.
    #[test]
    fn a_label_goes_after_its_bar_then_before_it_then_inside_it() {
        let (left, right) = (0.0, 400.0);
        assert_eq!(
            label_place(10.0, 50.0, 80.0, left, right),
            LabelPlace::After
        );
        // Near the right edge: before the bar.
        assert_eq!(
            label_place(300.0, 380.0, 80.0, left, right),
            LabelPlace::Before
        );
        // A bar from the left edge to near the right one: over it.
        assert_eq!(
            label_place(2.0, 380.0, 80.0, left, right),
            LabelPlace::Inside
        );
        // Exactly room enough after it.
        assert_eq!(
            label_place(10.0, right - 80.0 - LABEL_GAP, 80.0, left, right),
            LabelPlace::After
        );
    }

    // Issue 43: the labels read at AA beside their bars (on the plot's
    // background) and over them (on each kind's colour), in both themes.
    #[test]
    fn the_waterfalls_labels_reach_wcag_aa_in_both_themes() {
        for (theme, dark) in [(egui::Theme::Dark, true), (egui::Theme::Light, false)] {
            let visuals = theme::visuals(theme);
            let beside = theme::contrast(visuals.text_color(), visuals.extreme_bg_color);
            assert!(beside >= 4.5, "{theme:?}: beside a bar: {beside:.2}:1");
            for kind in SpanKind::ALL {
                let fill = kind_color(kind, dark);
                let ratio = theme::contrast(theme::text_color_on(fill), fill);
                assert!(ratio >= 4.5, "{theme:?}: over a {kind:?} bar: {ratio:.2}:1");
            }
        }
    }
}
