//! `agui-replay export`: the stream, a range, or one activity's minimal
//! repro, as JSON lines, SSE, a vector or a recording.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{EXIT_OK, StreamArgs, open_stream};
use crate::diagnostic::Seq;
use crate::export::{ExportContext, ExportFormat, Scope, select, write};

/// `export --format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One event per line.
    Jsonl,
    /// `data: <json>` frames.
    Sse,
    /// A conformance vector with the observed outcome as expectation.
    Vector,
    /// A new recording file.
    Recording,
}

/// `export` options.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Where to write.
    #[arg(long, value_name = "OUT")]
    pub out: PathBuf,
    /// Output format (default: from the extension of `--out`: .sse, .json
    /// for a vector, .rec/.sqlite/.db for a recording; JSON lines otherwise).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// The first step of a range (with `--to`).
    #[arg(long, value_name = "A", conflicts_with = "message")]
    pub from: Option<u64>,
    /// The last step (default: the last event).
    #[arg(long, value_name = "N")]
    pub to: Option<u64>,
    /// One activity's minimal repro up to `--to`.
    #[arg(long, value_name = "ID")]
    pub message: Option<String>,
    /// Replace `--out` if it exists.
    #[arg(long)]
    pub force: bool,
}

fn format_of(args: &ExportArgs) -> ExportFormat {
    let by_extension = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match (args.format, by_extension.as_deref()) {
        (Some(FormatArg::Jsonl), _) => ExportFormat::Jsonl,
        (Some(FormatArg::Sse), _) => ExportFormat::Sse,
        (Some(FormatArg::Vector), _) => ExportFormat::Vector,
        (Some(FormatArg::Recording), _) => ExportFormat::Recording,
        (None, Some("sse" | "txt")) => ExportFormat::Sse,
        (None, Some("json")) => ExportFormat::Vector,
        (None, Some("rec" | "sqlite" | "db" | "agui")) => ExportFormat::Recording,
        (None, _) => ExportFormat::Jsonl,
    }
}

pub(super) fn run(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    super::prepare_output(&args.out, args.force)?;
    let (source, options) = open_stream(&args.stream)?;
    let last = Seq(source.events.len() as u64);
    let to = args.to.map_or(last, Seq);
    let scope = match (&args.message, args.from) {
        (Some(id), _) => Scope::Repro {
            message_id: id.clone(),
            to,
        },
        (None, Some(from)) => Scope::Range(Seq(from), to),
        (None, None) => Scope::UpTo(to),
    };
    let start = source.start(options);
    let selection = select(&source.events, &start, &scope)?;

    let source_name = args.stream.file.display().to_string();
    let name = match &scope {
        Scope::UpTo(to) => format!("export of {source_name} up to {to}"),
        Scope::Range(from, to) => format!("export of {source_name}, steps {from} to {to}"),
        Scope::Repro { message_id, to } => {
            format!("repro of {message_id} up to {to} from {source_name}")
        }
    };
    let context = ExportContext {
        source_name: &source_name,
        session: source.session.as_ref(),
        run_input: source.run_input.as_ref(),
        options,
        name,
        arrival_nanos: source.arrival_nanos.as_deref(),
    };
    write(&selection, format_of(args), &context, &args.out)?;
    writeln!(
        out,
        "wrote {}: {} events",
        args.out.display(),
        selection.events.len()
    )?;
    Ok(EXIT_OK)
}
