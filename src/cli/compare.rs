//! `agui-replay compare A B`: two recordings (or sessions, or stream
//! files) of the same agent aligned, their first divergence in the events
//! and in the state, and what differs after that (issue 17, point 4).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;
use serde_json::json;

use super::{EXIT_OK, EXIT_RUN_FAILED, OutputFormat, ProtocolArg, StreamArgs, open_stream};
use crate::compare::{DifferenceKind, EventDifference, Side, StateDifference, compare};
use crate::replay::Profile;

/// How many differences the text output lists (the JSON lists them all).
const TEXT_DIFFERENCES: usize = 50;

/// `compare` options.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first stream (A): a recording, .jsonl, .json, SSE body, HAR
    /// file, or `-` for standard input.
    pub a: PathBuf,
    /// The second stream (B), likewise (not `-` if A is).
    pub b: PathBuf,
    /// Which session of the recordings (or exchange of HAR files) to
    /// compare; needed when there are several.
    #[arg(long, value_name = "N")]
    pub session: Option<i64>,
    /// B's session, when it is not A's (`compare rec rec --session 1
    /// --session-b 2` compares two sessions of one recording).
    #[arg(long, value_name = "N")]
    pub session_b: Option<i64>,
    /// The consumer to imitate (default: spec, or the profile each stream
    /// declares).
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// Keep applying events after a fatal error (R43).
    #[arg(long)]
    pub best_effort: bool,
    /// The AG-UI version the consumer implements (§11).
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1_1)]
    pub protocol: ProtocolArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

impl CompareArgs {
    fn stream(&self, file: &Path, session: Option<i64>) -> StreamArgs {
        StreamArgs {
            file: file.to_owned(),
            profile: self.profile,
            best_effort: self.best_effort,
            protocol: self.protocol,
            session,
        }
    }
}

pub(super) fn run(args: &CompareArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let stdin = Path::new("-");
    if args.a == stdin && args.b == stdin {
        bail!("standard input can be read once: give A or B as a file");
    }
    let session_b = args.session_b.or(args.session);
    let (source_a, options_a) = open_stream(&args.stream(&args.a, args.session))?;
    let (source_b, options_b) = open_stream(&args.stream(&args.b, session_b))?;
    let comparison = compare(
        Side {
            start: source_a.start(options_a),
            events: &source_a.events,
        },
        Side {
            start: source_b.start(options_b),
            events: &source_b.events,
        },
    );
    let describe = |file: &PathBuf, source: &crate::open::Source| {
        json!({
            "file": file.display().to_string(),
            "session": source.session.as_ref().map(|s| s.id.get()),
        })
    };
    match args.format {
        OutputFormat::Json => {
            let value =
                comparison.to_json(describe(&args.a, &source_a), describe(&args.b, &source_b));
            super::write_json(out, &value, true)?;
            writeln!(out)?;
        }
        OutputFormat::Text => {
            let name = |file: &PathBuf, source: &crate::open::Source| match &source.session {
                Some(session) => format!("{} (session {})", file.display(), session.id),
                None => file.display().to_string(),
            };
            let sides = [
                ("A", name(&args.a, &source_a), comparison.num_events_a),
                ("B", name(&args.b, &source_b), comparison.num_events_b),
            ];
            for ((side, name, events), (outcome, fatal)) in
                sides.into_iter().zip(comparison.outcomes)
            {
                let ended = match fatal {
                    Some(seq) => format!("failed at step {seq}"),
                    None => outcome.as_str().to_owned(),
                };
                writeln!(out, "{side}: {name}, {events} events, {ended}")?;
            }
            text(&comparison, out)?;
        }
    }
    Ok(if comparison.agree() {
        EXIT_OK
    } else {
        EXIT_RUN_FAILED
    })
}

/// The comparison in words, after the lines naming A and B (what
/// `whatif` prints too).
pub(super) fn text(
    c: &crate::compare::StreamComparison,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "{} aligned ({} changed), {} only in A, {} only in B (timestamps ignored)",
        c.num_aligned(),
        c.count(DifferenceKind::Changed),
        c.count(DifferenceKind::OnlyInA),
        c.count(DifferenceKind::OnlyInB),
    )?;
    if !c.alignment_exact {
        writeln!(
            out,
            "the alignment is approximate: the streams differ too much for the shortest one \
             to be searched for (a stretch of events with no id they share once each, or \
             over {} s of search)",
            crate::compare::ALIGNMENT_TIME_LIMIT.as_secs()
        )?;
    }
    if c.agree() {
        writeln!(out, "the two agree")?;
        return Ok(());
    }
    match c.first_event_divergence() {
        Some(d) => writeln!(out, "first event divergence: {}", difference_line(d))?,
        None => writeln!(out, "first event divergence: none (the events agree)")?,
    }
    match &c.first_state_divergence {
        Some(d) => writeln!(out, "first state divergence: {}", state_line(d))?,
        None => writeln!(out, "first state divergence: none (the states agree)")?,
    }
    if !c.state_spans.is_empty() {
        writeln!(out, "the states differ at:")?;
        for span in &c.state_spans {
            let mut what: Vec<String> = span
                .messages
                .iter()
                .map(|id| crate::surrogate::display(id).into_owned())
                .collect();
            if span.state {
                what.push("the state".to_owned());
            }
            let what = if what.is_empty() {
                "the order of the messages".to_owned()
            } else {
                what.join(", ")
            };
            writeln!(
                out,
                "  A {}..{} / B {}..{}: {what}",
                span.from.0, span.to.0, span.from.1, span.to.1
            )?;
        }
    }
    match &c.final_state {
        Some(d) => writeln!(out, "at the end: {}", state_line(d))?,
        None => writeln!(out, "at the end: the states agree")?,
    }
    writeln!(out, "differences:")?;
    for d in c.differences.iter().take(TEXT_DIFFERENCES) {
        writeln!(out, "  {}", difference_line(d))?;
    }
    if c.differences.len() > TEXT_DIFFERENCES {
        writeln!(
            out,
            "  … and {} more (--format json lists them all)",
            c.differences.len() - TEXT_DIFFERENCES
        )?;
    }
    Ok(())
}

/// One difference in words; an id or a path holding a lone UTF-16
/// surrogate shows it as such (issue 39).
fn difference_line(d: &EventDifference) -> String {
    crate::surrogate::display(&difference_words(d)).into_owned()
}

fn difference_words(d: &EventDifference) -> String {
    let label = d.key.label();
    match d.kind {
        DifferenceKind::Changed => {
            let paths: Vec<String> = d
                .patch
                .iter()
                .flat_map(|p| p.0.iter().map(|op| op.path().to_string()))
                .collect();
            format!(
                "A {} / B {}: {label} changed ({})",
                d.a,
                d.b,
                if paths.is_empty() {
                    "bytes".to_owned()
                } else {
                    paths.join(", ")
                }
            )
        }
        DifferenceKind::OnlyInA => format!("A {} (after B {}): {label} only in A", d.a, d.b),
        DifferenceKind::OnlyInB => format!("B {} (after A {}): {label} only in B", d.b, d.a),
    }
}

fn state_line(d: &StateDifference) -> String {
    let mut what: Vec<String> = d
        .messages
        .iter()
        .map(|id| format!("message {}", crate::surrogate::display(id)))
        .collect();
    if d.state {
        what.push("the state".to_owned());
    }
    if d.message_order {
        what.push("the order of the messages".to_owned());
    }
    let patch = crate::surrogate::escape_json(serde_json::to_string(&d.patch).unwrap_or_default());
    format!(
        "A {} / B {}: {} differ; patch A→B {}",
        d.a,
        d.b,
        what.join(", "),
        truncate(&patch, 240)
    )
}

fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(max_chars).collect();
    format!("{cut}…")
}
