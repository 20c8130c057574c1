//! `agui-replay check`: replay a stream, print its diagnostics.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::{CheckArgs, EXIT_OK, EXIT_RUN_FAILED, OutputFormat, open_stream};
use crate::diagnostic::{Diagnostic, Severity, SeverityCounts};
use crate::replay::{Lockstep, Outcome, merge_divergences, replay_comparing};
use crate::timing::{Clock, merge_stalls};

/// The `check --format json` object, in the contract's member order.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// The number of events in the stream.
    pub events: usize,
    /// `ok` or `failed`.
    pub outcome: &'static str,
    /// The diagnostic that failed the run, or `null`.
    pub fatal: Option<Diagnostic>,
    /// Every diagnostic: the reader's (seq 0), then the replay's, in order,
    /// each event's `profile.divergence` (P13) after its own.
    pub diagnostics: Vec<Diagnostic>,
    /// The AG-UI messages at the last applied step.
    pub messages: Value,
    /// The shared state at the last applied step.
    pub state: Value,
}

pub(super) fn run(args: &CheckArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    // S1: a schema folder that cannot be used fails before the replay.
    let schemas = args
        .schemas
        .as_deref()
        .map(crate::schemas::SchemaSet::load)
        .transpose()?;
    let (source, options) = open_stream(&args.stream)?;
    // P13: the other profile replays in lockstep; where the two part, an
    // `info` `profile.divergence` follows the event's own diagnostics.
    let (replayer, divergences) = replay_comparing(
        source.start(options),
        source.start(Lockstep::other_options(options)),
        &source.events,
    );
    let mut diagnostics = source.diagnostics.clone();
    diagnostics.extend(merge_divergences(replayer.diagnostics(), &divergences));
    // T1: the stalls, from the stream's own times only.
    let stalls = Clock::of_source(&source).stalls(args.stall_after);
    let mut diagnostics = merge_stalls(diagnostics, &stalls, args.stall_after);
    // S1: the contents, observed step by step in a replay of their own
    // (the engine is not changed for it); each finding after its event's.
    if let Some(schemas) = &schemas {
        let found = crate::schemas::check_stream(
            schemas,
            source.start(options),
            source.run_input.as_ref(),
            &source.events,
        );
        diagnostics = merge_divergences(&diagnostics, &found);
    }
    let outcome = replayer.outcome();
    let report = CheckReport {
        events: source.events.len(),
        outcome: outcome.as_str(),
        fatal: replayer.fatal().cloned(),
        diagnostics,
        messages: replayer.conversation().to_json(),
        state: replayer.state().clone(),
    };
    match args.format {
        OutputFormat::Json => {
            super::write_json(out, &report, true)?;
            writeln!(out)?;
        }
        OutputFormat::Text => write_text(&report, &args.stream.file.display().to_string(), out)?,
    }
    Ok(match outcome {
        Outcome::Ok => EXIT_OK,
        Outcome::Failed => EXIT_RUN_FAILED,
    })
}

/// One diagnostic as a line of text: `seq`, severity, code, messageId (`-`
/// without one), message, in columns. What `check` prints for each
/// diagnostic, and `serve` for each request's.
pub(super) fn write_diagnostic_line(d: &Diagnostic, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:>6}  {:<7}  {}  {}  {}",
        d.seq,
        d.severity,
        d.code,
        // Issue 39: an id holding a lone UTF-16 surrogate shows it as such.
        crate::surrogate::display(d.message_id.as_deref().unwrap_or("-")),
        d.message
    )
}

/// One line per diagnostic (`seq`, severity, code, messageId, message) and a
/// summary line with the counts per severity.
fn write_text(report: &CheckReport, name: &str, out: &mut dyn Write) -> std::io::Result<()> {
    for d in &report.diagnostics {
        write_diagnostic_line(d, out)?;
    }
    let counts = SeverityCounts::of(&report.diagnostics);
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    write!(
        out,
        "{name}: {}, outcome {}: {}, {}, {}, {} info",
        plural(report.events, "event"),
        report.outcome,
        plural(counts.get(Severity::Error), "error"),
        plural(counts.get(Severity::Warning), "warning"),
        plural(counts.get(Severity::Note), "note"),
        counts.get(Severity::Info),
    )?;
    if let Some(fatal) = &report.fatal {
        write!(out, " (failed at seq {}: {})", fatal.seq, fatal.code)?;
    }
    writeln!(out)
}
