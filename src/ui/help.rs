//! The Help menu's windows besides the keys (issue 43, point 4): the rules
//! reference built into the binary, with a filter, and "About": the
//! version and where the manual is.

use egui::{RichText, Ui};

use crate::rules::reference;

/// The manual's pages, as the repository holds them.
const MANUAL: &[(&str, &str)] = &[
    (
        "docs/app.md",
        "the desktop app: panels, keys, the command palette",
    ),
    ("docs/commands.md", "the command line"),
    ("docs/RULES.md", "the replay rules and the diagnostic codes"),
    ("docs/recording.md", "recording and serving streams"),
];

/// Help › Rules reference: every rule (its id, title and text) and the
/// codes that report it, filtered by what is typed.
pub fn rules_window_ui(ctx: &egui::Context, open: &mut bool) {
    if !*open {
        return;
    }
    let filter_id = egui::Id::unique("rules-reference-filter");
    let mut filter: String = ctx.data(|d| d.get_temp(filter_id)).unwrap_or_default();
    egui::Window::new("Rules reference")
        .open(open)
        .default_size([560.0, 520.0])
        .max_height(ctx.content_rect().height() * 0.8)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                let label = ui.label("Filter");
                ui.add(
                    egui::TextEdit::singleline(&mut filter)
                        .hint_text("a rule id, a code or a word")
                        .desired_width(240.0),
                )
                .labelled_by(label.id);
            });
            ui.separator();
            egui::ScrollArea::vertical().show(ui, |ui| rules_list_ui(ui, &filter));
        });
    ctx.data_mut(|d| d.insert_temp(filter_id, filter));
}

fn rules_list_ui(ui: &mut Ui, filter: &str) {
    let reference = reference();
    let needle = filter.trim().to_lowercase();
    let mut shown = 0;
    for rule in &reference.rules {
        let codes: Vec<_> = reference.codes_of(rule.id).map(|code| code.name).collect();
        let matches = needle.is_empty()
            || rule.heading().to_lowercase().contains(&needle)
            || rule.text.to_lowercase().contains(&needle)
            || codes.iter().any(|code| code.contains(&needle));
        if !matches {
            continue;
        }
        shown += 1;
        super::rule_text::rule_ui(ui, rule);
        if !codes.is_empty() {
            ui.label(RichText::new(codes.join(", ")).monospace().weak());
        }
        ui.add_space(6.0);
    }
    if shown == 0 {
        ui.weak("No rule matches");
    }
}

/// Help › About agui-replay: the version, and where the manual is.
pub fn about_window_ui(ctx: &egui::Context, open: &mut bool) {
    if !*open {
        return;
    }
    egui::Window::new("About agui-replay")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.heading(format!("agui-replay {}", env!("CARGO_PKG_VERSION")));
            ui.label(env!("CARGO_PKG_DESCRIPTION"));
            ui.add_space(6.0);
            ui.label("The manual, in the source repository:");
            egui::Grid::new("about-manual")
                .num_columns(2)
                .show(ui, |ui| {
                    for (page, what) in MANUAL {
                        ui.label(RichText::new(*page).monospace());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            ui.hyperlink(env!("CARGO_PKG_REPOSITORY"));
            ui.weak("On the command line: agui-replay --help");
        });
}
