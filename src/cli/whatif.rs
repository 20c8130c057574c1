//! `agui-replay whatif FILE --drop N | --replace N=JSON | --insert N=JSON…`
//! (issue 41): the stream replayed with some events dropped, replaced or
//! inserted, compared with the recording as `compare` compares two streams,
//! with the edited replay's outcome and diagnostics as `check` has them;
//! `--out` writes the edited stream. The input is never modified.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};

use super::{EXIT_OK, EXIT_RUN_FAILED, OutputFormat, ProtocolArg, StreamArgs, open_stream};
use crate::compare::{Side, compare};
use crate::diagnostic::{Diagnostic, Seq, Severity, SeverityCounts};
use crate::export::{
    ExportContext, ExportFormat, ExportRequest, Redaction, Scope, export_name, fixture_name,
};
use crate::input::HttpRequest;
use crate::open::Source;
use crate::replay::{Lockstep, Options, Profile, Replayer, merge_divergences, replay_comparing};
use crate::store::{SessionId, SessionInfo, SessionStatus};
use crate::timing::{Clock, merge_stalls};
use crate::whatif::{Edit, Edits, RunInputChange};

/// `whatif` options.
#[derive(Debug, Args)]
pub struct WhatifArgs {
    /// The stream: a recording, .jsonl, .json, SSE body, HAR file, or `-`
    /// for standard input.
    pub file: PathBuf,
    /// Leave out the event of step N (as `check` numbers them; 0 drops the
    /// run input); repeatable.
    #[arg(long = "drop", value_name = "N")]
    pub drops: Vec<u64>,
    /// Put the event JSON in place of step N (0: the run input, a
    /// RunAgentInput); JSON inline or `@file.json`; repeatable.
    #[arg(long = "replace", value_name = "N=JSON", value_parser = parse_step_text)]
    pub replaces: Vec<(u64, String)>,
    /// Put the event JSON before step N (the last step + 1 appends); JSON
    /// inline or `@file.json`; repeatable, in order.
    #[arg(long = "insert", value_name = "N=JSON", value_parser = parse_step_text)]
    pub inserts: Vec<(u64, String)>,
    /// Which session of a recording (or exchange of a HAR file) to edit;
    /// needed when there are several.
    #[arg(long, value_name = "N")]
    pub session: Option<i64>,
    /// The consumer to imitate (default: spec, or the profile the stream
    /// declares).
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// Keep applying events after a fatal error (R43).
    #[arg(long)]
    pub best_effort: bool,
    /// The AG-UI version the consumer implements (§11).
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1_1)]
    pub protocol: ProtocolArg,
    /// Check activity contents and the state of the edited replay against
    /// the JSON Schemas in DIR, as `check --schemas` (S1).
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Write the edited stream here, in the format `export` gives its
    /// extension: a recording for .rec, .sqlite or .db, SSE for .sse, a
    /// vector for .json, JSON lines otherwise (or as `--out-format` says).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The format of `--out`, as `export --format` takes it (a conformance
    /// fixture is asked for by name).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "out")]
    pub out_format: Option<ExportFormat>,
    /// Replace `--out` if it exists.
    #[arg(long)]
    pub force: bool,
}

/// How `check` reports a gap (its `--stall-after` default), so that the
/// edited replay's diagnostics are those `check` gives the edited stream.
const STALL_AFTER_NANOS: u64 = 2_000_000_000;

/// `N=JSON`: the step, and the text after the first `=`.
fn parse_step_text(arg: &str) -> Result<(u64, String), String> {
    let (step, text) = arg
        .split_once('=')
        .ok_or_else(|| format!("expected N=JSON (or N=@file.json), got {arg:?}"))?;
    let step = step
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("the step before `=` is not a number: {step:?}"))?;
    Ok((step, text.to_owned()))
}

/// The JSON text of an edit: inline, or the contents of `@file.json`.
fn edit_text(text: &str) -> anyhow::Result<String> {
    match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the event of {text}")),
        None => Ok(text.to_owned()),
    }
}

/// The edits, in the order of the command line's options.
fn edits_of(args: &WhatifArgs) -> anyhow::Result<Vec<Edit>> {
    let mut edits: Vec<Edit> = args
        .drops
        .iter()
        .map(|&n| Edit::Drop(Seq::new(n)))
        .collect();
    for (step, text) in &args.replaces {
        edits.push(Edit::Replace(Seq::new(*step), edit_text(text)?));
    }
    for (step, text) in &args.inserts {
        edits.push(Edit::Insert(Seq::new(*step), edit_text(text)?));
    }
    if edits.is_empty() {
        bail!("nothing to edit: give --drop N, --replace N=JSON or --insert N=JSON");
    }
    Ok(edits)
}

/// An edit as the JSON output lists it.
fn edit_json(edit: &Edit) -> Value {
    let mut value = json!({ "edit": edit.kind(), "step": edit.step() });
    if let (Some(text), Value::Object(map)) = (edit.text(), &mut value) {
        let rewritten = crate::surrogate::rewrite(text);
        let parsed = serde_json::from_str::<Value>(rewritten.as_deref().unwrap_or(text))
            .unwrap_or_else(|_| Value::String(text.to_owned()));
        map.insert("json".into(), parsed);
    }
    value
}

/// The `whatif --format json` object: what `compare` prints for the
/// recording (A) and the edited stream (B), then the edits, whether they
/// changed nothing, the edited replay and where it was written.
#[derive(Serialize)]
struct WhatifJson<'a> {
    #[serde(flatten)]
    comparison: Value,
    edits: Vec<Value>,
    unchanged: bool,
    edited: EditedJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    out: Option<Value>,
}

/// The edited replay's members of `check --format json`, in its order.
#[derive(Serialize)]
struct EditedJson<'a> {
    outcome: &'static str,
    fatal: Option<&'a Diagnostic>,
    diagnostics: &'a [Diagnostic],
}

/// The edited replay as `check --format json` has it: its outcome, fatal
/// error and diagnostics.
struct EditedReport {
    outcome: crate::replay::Outcome,
    fatal: Option<Diagnostic>,
    diagnostics: Vec<Diagnostic>,
}

/// What `check` does to a stream, for the edited one: the replay with the
/// other profile in lockstep (P13), the stalls (T1) and the schemas (S1).
fn edited_report(
    source: &Source,
    options: Options,
    schemas: Option<&crate::schemas::SchemaSet>,
) -> EditedReport {
    let (replayer, divergences) = replay_comparing(
        source.start(options),
        source.start(Lockstep::other_options(options)),
        &source.events,
    );
    let mut diagnostics = source.diagnostics.clone();
    diagnostics.extend(merge_divergences(replayer.diagnostics(), &divergences));
    let stalls = Clock::of_source(source).stalls(STALL_AFTER_NANOS);
    let mut diagnostics = merge_stalls(diagnostics, &stalls, STALL_AFTER_NANOS);
    if let Some(schemas) = schemas {
        let found = crate::schemas::check_stream(
            schemas,
            source.start(options),
            source.run_input.as_ref(),
            &source.events,
        );
        diagnostics = merge_divergences(&diagnostics, &found);
    }
    EditedReport {
        outcome: replayer.outcome(),
        fatal: replayer.fatal().cloned(),
        diagnostics,
    }
}

/// The recording session an export of the edited stream carries: the
/// recorded one (its request body, the run input, kept byte for byte
/// unless an edit changed it), or, for a stream without a session, one
/// when it has a run input to keep.
fn edited_session(source: &Source, edits: &Edits, num_events: usize) -> Option<SessionInfo> {
    // Written as the replay reads it: a lone surrogate as its escape.
    let json = |input: &Value| {
        serde_json::to_string(input)
            .map(|text| crate::surrogate::escape_json(text).into_bytes())
            .unwrap_or_default()
    };
    let body = match edits.run_input_change() {
        None => None,
        Some(RunInputChange::Dropped) => Some(None),
        Some(RunInputChange::Replaced(input)) => Some(Some(json(input))),
    };
    match &source.session {
        Some(session) => {
            let mut session = session.clone();
            match (&mut session.request, body) {
                (_, None) => {}
                (Some(request), Some(body)) => request.body = body,
                (None, Some(Some(body))) => session.request = Some(synthetic_request(body)),
                (None, Some(None)) => {}
            }
            Some(session)
        }
        None => source.run_input.as_ref().map(json).map(|body| SessionInfo {
            id: SessionId::new(1),
            source: "whatif".to_owned(),
            format: "jsonl".to_owned(),
            started_at_unix_ms: 0,
            ended_at_unix_ms: None,
            status: SessionStatus::Complete,
            request: Some(synthetic_request(body)),
            response: None,
            reader_diagnostics: Vec::new(),
            num_events: num_events as u64,
            redacted: Vec::new(),
        }),
    }
}

fn synthetic_request(body: Vec<u8>) -> HttpRequest {
    HttpRequest {
        method: "POST".to_owned(),
        url: String::new(),
        headers: Vec::new(),
        body: Some(body),
    }
}

/// Checks `--out` before any work: not the input, not an existing file
/// without `--force`.
fn check_out(args: &WhatifArgs) -> anyhow::Result<()> {
    let Some(path) = &args.out else {
        return Ok(());
    };
    if crate::file_identity::is_same_file(path, &args.file) {
        bail!(
            "the output is the input: the recording is never modified; write to another file: {}",
            path.display()
        );
    }
    if path.exists() && !args.force {
        bail!(
            "the output exists; pass --force to replace it: {}",
            path.display()
        );
    }
    Ok(())
}

pub(super) fn run(args: &WhatifArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    check_out(args)?;
    let schemas = args
        .schemas
        .as_deref()
        .map(crate::schemas::SchemaSet::load)
        .transpose()?;
    let edits = edits_of(args)?;
    let (mut source, options) = open_stream(&StreamArgs {
        file: args.file.clone(),
        profile: args.profile,
        best_effort: args.best_effort,
        protocol: args.protocol,
        session: args.session,
    })?;
    let edits = Edits::new(edits, source.events.len(), source.run_input.is_some())?;
    let recorded_events = std::mem::take(&mut source.events);
    let edited_stream = edits.apply(&recorded_events);
    let arrival_nanos = source
        .arrival_nanos
        .as_deref()
        .map(|recorded| edited_stream.arrivals(recorded));
    let edited = Source {
        arrival_nanos,
        run_input: edits.run_input(source.run_input.as_ref()),
        events: edited_stream.events,
        ..source.clone()
    };
    let recorded = Source {
        events: recorded_events,
        ..source
    };
    let comparison = compare(
        Side {
            start: recorded.start(options),
            events: &recorded.events,
        },
        Side {
            start: edited.start(options),
            events: &edited.events,
        },
    );
    let report = edited_report(&edited, options, schemas.as_ref());
    let unchanged = comparison.outcomes[0].0 == comparison.outcomes[1].0
        && comparison.first_state_divergence.is_none()
        && comparison.final_state.is_none();
    let written = match &args.out {
        Some(path) => Some(write_edited(args, path, &edited, &edits, options)?),
        None => None,
    };
    let labels: Vec<String> = edits.edits().iter().map(Edit::label).collect();
    match args.format {
        OutputFormat::Json => {
            let describe = |source: &Source| {
                json!({
                    "file": args.file.display().to_string(),
                    "session": source.session.as_ref().map(|s| s.id.get()),
                })
            };
            let value = WhatifJson {
                comparison: comparison.to_json(describe(&recorded), describe(&edited)),
                edits: edits.edits().iter().map(edit_json).collect(),
                unchanged,
                edited: EditedJson {
                    outcome: report.outcome.as_str(),
                    fatal: report.fatal.as_ref(),
                    diagnostics: &report.diagnostics,
                },
                out: written.as_ref().map(|(path, num_events)| {
                    json!({ "file": path.display().to_string(), "events": num_events })
                }),
            };
            super::write_json(out, &value, true)?;
            writeln!(out)?;
        }
        OutputFormat::Text => {
            let name = match &recorded.session {
                Some(session) => format!("{} (session {})", args.file.display(), session.id),
                None => args.file.display().to_string(),
            };
            let sides = [
                ("A", format!("{name} as recorded"), comparison.num_events_a),
                (
                    "B",
                    format!("{name} edited ({})", labels.join(", ")),
                    comparison.num_events_b,
                ),
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
            super::compare::text(&comparison, out)?;
            write_edited_text(&report, out)?;
            if unchanged {
                writeln!(
                    out,
                    "the edits change neither the outcome, the messages nor the state"
                )?;
            } else {
                writeln!(
                    out,
                    "the edits change the outcome, the messages or the state"
                )?;
            }
            if let Some((path, num_events)) = &written {
                writeln!(out, "wrote {}: {num_events} events", path.display())?;
            }
        }
    }
    Ok(if unchanged { EXIT_OK } else { EXIT_RUN_FAILED })
}

/// The edited replay's diagnostics, as `check` prints them, after a line
/// with its outcome and counts.
fn write_edited_text(report: &EditedReport, out: &mut dyn Write) -> anyhow::Result<()> {
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
        "edited: outcome {}: {}, {}, {}, {} info",
        report.outcome.as_str(),
        plural(counts.get(Severity::Error), "error"),
        plural(counts.get(Severity::Warning), "warning"),
        plural(counts.get(Severity::Note), "note"),
        counts.get(Severity::Info),
    )?;
    if let Some(fatal) = &report.fatal {
        write!(out, " (failed at seq {}: {})", fatal.seq, fatal.code)?;
    }
    writeln!(out)?;
    for d in &report.diagnostics {
        super::check::write_diagnostic_line(d, out)?;
    }
    Ok(())
}

/// Writes the edited stream to `path` in the format its extension names,
/// through the export code; returns the path and the number of events.
fn write_edited(
    args: &WhatifArgs,
    path: &Path,
    edited: &Source,
    edits: &Edits,
    options: Options,
) -> anyhow::Result<(PathBuf, usize)> {
    let format = args
        .out_format
        .or_else(|| ExportFormat::from_extension(path))
        .unwrap_or(ExportFormat::Jsonl);
    if matches!(
        format,
        ExportFormat::Jsonl | ExportFormat::Sse | ExportFormat::Proto
    ) && edits.run_input_change().is_some()
    {
        eprintln!(
            "note: {} holds events only, not the edited run input (step 0); write a recording \
             (.rec) or a vector (.json) to keep it",
            path.display()
        );
    }
    let source_name = format!("{} (edited)", args.file.display());
    let scope = Scope::UpTo(Seq::new(edited.events.len() as u64));
    let session = edited_session(edited, edits, edited.events.len());
    let context = ExportContext {
        source_name: &source_name,
        session: session.as_ref(),
        run_input: edited.run_input.as_ref(),
        options,
        // A fixture is named after its file, as in the corpus.
        name: if format == ExportFormat::Conformance {
            fixture_name(Some(path), &scope)
        } else {
            export_name(&source_name, &scope)
        },
        arrival_nanos: edited.arrival_nanos.as_deref(),
    };
    let request = ExportRequest {
        scope,
        format,
        redaction: Redaction::default(),
    };
    let start: Replayer = edited.start(options);
    let rendered = crate::export::render(&edited.events, &start, &request, &context)?;
    let summary = rendered.write_to(path)?;
    Ok((path.to_owned(), summary.num_events))
}
