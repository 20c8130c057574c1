//! `agui-replay timing`: how the stream spent its time (issue 17, point 3).

use std::io::Write;

use clap::Args;

use super::{EXIT_OK, OutputFormat, StreamArgs, open_stream};
use crate::diagnostic::Diagnostic;
use crate::timing::{Clock, RunFigures, TimingReport, format_nanos, parse_duration_nanos};

/// `timing` options.
#[derive(Debug, Args)]
pub struct TimingArgs {
    /// The stream (and `--session N` of a recording or HAR file).
    #[command(flatten)]
    pub stream: StreamArgs,
    /// A gap between two events longer than this is a stall (`stream.stall`,
    /// T1): `2s`, `1.5s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration_nanos)]
    pub stall_after: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Validate each activity's content, and the state, against the JSON
    /// Schemas in DIR, as `check --schemas` (S1): the findings are listed
    /// after the stalls.
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<std::path::PathBuf>,
}

/// What `timing --format json` prints: the report, and with `--schemas`
/// the schema findings.
#[derive(serde::Serialize)]
struct TimingOutput<'a> {
    #[serde(flatten)]
    report: &'a TimingReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_findings: Option<&'a [Diagnostic]>,
}

pub(super) fn run(args: &TimingArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    // S1: a schema folder that cannot be used fails before the replay.
    let schemas = args
        .schemas
        .as_deref()
        .map(crate::schemas::SchemaSet::load)
        .transpose()?;
    let (source, options) = open_stream(&args.stream)?;
    let clock = Clock::of_source(&source);
    let report = TimingReport::of(&source.events, &clock, args.stall_after);
    // Issue 42: the contents checked as `check --schemas` does.
    let findings = schemas.as_ref().map(|schemas| {
        crate::schemas::check_stream(
            schemas,
            source.start(options),
            source.run_input.as_ref(),
            &source.events,
        )
    });
    match args.format {
        OutputFormat::Json => {
            let output = TimingOutput {
                report: &report,
                schema_findings: findings.as_deref(),
            };
            serde_json::to_writer_pretty(&mut *out, &output)?;
            writeln!(out)?;
        }
        OutputFormat::Text => {
            write_text(&report, &args.stream.file.display().to_string(), out)?;
            if let Some(findings) = &findings {
                write_findings(findings, out)?;
            }
        }
    }
    Ok(EXIT_OK)
}

/// The schema findings, one line each as `check` prints a diagnostic.
fn write_findings(findings: &[Diagnostic], out: &mut dyn Write) -> std::io::Result<()> {
    if findings.is_empty() {
        return writeln!(out, "schema findings: none");
    }
    writeln!(out, "schema findings: {}", findings.len())?;
    for finding in findings {
        super::check::write_diagnostic_line(finding, out)?;
    }
    Ok(())
}

/// `~` before a time some of whose ends are invented.
fn shown(nanos: u64, invented: bool) -> String {
    let time = format_nanos(nanos);
    if invented {
        format!("~{time} (invented)")
    } else {
        time
    }
}

fn write_text(report: &TimingReport, name: &str, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{name}: {} events over {}, {}",
        report.events,
        format_nanos(report.duration_nanos),
        report.times.describe()
    )?;
    if report.num_invented_times > 0 && report.num_invented_times < report.events {
        writeln!(
            out,
            "  {} of {} events have an invented time (shown with ~)",
            report.num_invented_times, report.events
        )?;
    }
    for run in &report.runs {
        write_run(run, out)?;
    }
    let threshold = format_nanos(report.stall_after_nanos);
    if report.stalls.is_empty() {
        writeln!(out, "stalls over {threshold}: none")?;
    } else {
        writeln!(out, "stalls over {threshold}: {}", report.stalls.len())?;
        for stall in &report.stalls {
            writeln!(
                out,
                "  seq {} -> {}  {}",
                stall.after_seq,
                stall.seq,
                format_nanos(stall.gap_nanos)
            )?;
        }
    }
    Ok(())
}

fn write_run(run: &RunFigures, out: &mut dyn Write) -> std::io::Result<()> {
    let invented = run.num_invented_times > 0;
    let per_second = run
        .events_per_second
        .map_or_else(|| "-".to_owned(), |n| format!("{n}"));
    writeln!(
        out,
        "run {} {}: seq {}-{}, {} events in {}, {} events/s",
        run.run,
        crate::surrogate::display(run.run_id.as_deref().unwrap_or("(no RUN_STARTED)")),
        run.first_seq,
        run.last_seq,
        run.num_events,
        shown(run.duration_nanos, invented),
        per_second
    )?;
    writeln!(
        out,
        "  to first event     {}",
        shown(run.to_first_event_nanos, invented)
    )?;
    for (label, mark) in [
        ("to first text     ", run.to_first_text),
        ("to first activity ", run.to_first_activity),
    ] {
        match mark {
            Some(mark) => writeln!(
                out,
                "  {label} {} (seq {})",
                shown(mark.nanos, mark.invented),
                mark.seq
            )?,
            None => writeln!(out, "  {label} -")?,
        }
    }
    match run.longest_gap {
        Some(gap) => writeln!(
            out,
            "  longest gap        {} (seq {} -> {})",
            shown(gap.nanos, gap.invented),
            gap.after_seq,
            gap.seq
        )?,
        None => writeln!(out, "  longest gap        -")?,
    }
    for tool in &run.tool_calls {
        let result = tool.to_result_nanos.map_or_else(String::new, |n| {
            format!(", result after {}", format_nanos(n))
        });
        writeln!(
            out,
            "  tool call {} {}: seq {}-{}, {}{result}",
            crate::surrogate::display(tool.tool_call_id.as_deref().unwrap_or("-")),
            crate::surrogate::display(tool.name.as_deref().unwrap_or("-")),
            tool.first_seq,
            tool.last_seq,
            shown(tool.duration_nanos, tool.invented),
        )?;
    }
    Ok(())
}
