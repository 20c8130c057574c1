//! A rule's text wherever the app shows a rule id (`R14`) or a diagnostic
//! code: on hover, and in the diagnostics panel (issue 11). The text comes
//! from the rules reference built into the binary ([`crate::rules`]).

use egui::{Response, RichText, Ui};

use crate::diagnostic::Code;
use crate::rules::{Rule, reference};

/// The widest a rule's hover grows before wrapping.
const HOVER_WIDTH: f32 = 440.0;

/// The rule behind a diagnostic code, if the reference names one.
pub fn rule_of(code: Code) -> Option<&'static Rule> {
    reference().rule_of(code)
}

/// One rule: its heading, its section and its text, wrapped.
pub fn rule_ui(ui: &mut Ui, rule: &Rule) {
    ui.label(RichText::new(rule.heading()).strong());
    ui.label(rule.plain_text());
    ui.weak(format!("§{}", rule.section));
}

/// The hover of a code: the code, then its rule.
pub fn code_hover_ui(ui: &mut Ui, code: Code) {
    ui.set_max_width(HOVER_WIDTH);
    ui.label(RichText::new(code.as_str()).monospace());
    match rule_of(code) {
        Some(rule) => rule_ui(ui, rule),
        None => {
            ui.weak("No rule in the reference for this code");
        }
    }
}

/// Adds the rule behind `code` to a widget's hover.
pub fn on_hover_code(response: Response, code: Code) -> Response {
    response.on_hover_ui(|ui| code_hover_ui(ui, code))
}

/// Adds to a widget's hover `text` (what it said on hover before, if any)
/// and the text of every rule `label` cites (`"delta skipped (R12, R13)"`).
/// A label citing no rule of the reference gets `text` alone.
pub fn on_hover_cited(response: Response, label: &str, text: Option<&str>) -> Response {
    let cited = reference().rules_cited_in(label);
    if cited.is_empty() {
        return match text {
            Some(text) => response.on_hover_text(text),
            None => response,
        };
    }
    response.on_hover_ui(|ui| {
        ui.set_max_width(HOVER_WIDTH);
        if let Some(text) = text {
            ui.label(text);
            ui.separator();
        }
        for (i, rule) in cited.iter().enumerate() {
            if i > 0 {
                ui.separator();
            }
            rule_ui(ui, rule);
        }
    })
}

/// Inside a hover (where nothing hovers further): the heading of the rule
/// behind `code`, weak, under the line that shows the code.
pub fn rule_heading_line_ui(ui: &mut Ui, code: Code) {
    if let Some(rule) = rule_of(code) {
        ui.weak(format!("  {}", rule.heading()));
    }
}
