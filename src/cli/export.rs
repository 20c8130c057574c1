//! `agui-replay export`: the stream, a range, or one activity's minimal
//! repro, as JSON lines, SSE, a vector, a conformance fixture or a
//! recording, with values redacted; or a preview of it.

use std::io::Write;
use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::{EXIT_OK, StreamArgs, open_stream};
use crate::diagnostic::Seq;
use crate::export::{
    ExportContext, ExportFormat, ExportRequest, REDACTED_VALUE, Redaction, Scope, export_name,
    fixture_name, parse_pointer, render_with_schemas,
};

/// `export --format` values: the engine's formats, by their names
/// ([`ExportFormat::name`]), with what `--help` says of each.
impl ValueEnum for ExportFormat {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::Jsonl => "One event per line",
            Self::Sse => "`data: <json>` frames",
            Self::Proto => {
                "AG-UI's protobuf encoding (application/vnd.ag-ui.event+proto): a 4-byte length \
                 and a protobuf `Event` per event"
            }
            Self::Vector => "A conformance vector with the observed outcome as expectation",
            Self::Recording => "A new recording file",
            Self::Conformance => {
                "A fixture of the AG-UI conformance corpus (name, area, description, kill, \
                 input, stream, expect), its expectation being what the replay saw; never \
                 chosen by the extension (.json stays a vector)"
            }
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

/// `export` options.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Where to write (needed unless `--preview`).
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// Output format (default: from the extension of `--out`: .sse, .json
    /// for a vector, .rec/.sqlite/.db for a recording; JSON lines otherwise).
    /// A conformance fixture is asked for by name; its `name` is the file
    /// name of `--out` without `.json`.
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// The first step of a range (with `--to`).
    #[arg(long, value_name = "A", conflicts_with = "message")]
    pub from: Option<u64>,
    /// The last step (default: the last event).
    #[arg(long, value_name = "N")]
    pub to: Option<u64>,
    /// One activity's minimal repro up to `--to`.
    #[arg(long, value_name = "ID")]
    pub message: Option<String>,
    /// Replace the value at a JSON pointer (RFC 6901) in every exported
    /// event and in the run input by JSON (default "[REDACTED]"); repeatable.
    /// The first `=` ends the pointer, so a member name holding `=` cannot
    /// be named here (`~1` and `~0` stand for `/` and `~`).
    #[arg(long, value_name = "POINTER[=JSON]", value_parser = parse_redact)]
    pub redact: Vec<(String, Value)>,
    /// Leave the request and response headers out of a recording export
    /// (the other formats have none).
    #[arg(long)]
    pub drop_headers: bool,
    /// Print the start of what would be written instead of writing it (a
    /// recording: a summary, then its events as JSON lines).
    #[arg(long)]
    pub preview: bool,
    /// How much `--preview` prints, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = 65_536,
        requires = "preview"
    )]
    pub preview_bytes: usize,
    /// Replace `--out` if it exists.
    #[arg(long)]
    pub force: bool,
    /// Put the schema warnings of this folder (S1, as `check --schemas`)
    /// into a vector's or fixture's expectation; without it they are left
    /// out, so that the exported case replays without the folder.
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
}

/// `--redact POINTER[=JSON]`.
fn parse_redact(arg: &str) -> Result<(String, Value), String> {
    let (pointer, replacement) = match arg.split_once('=') {
        Some((pointer, json)) => {
            let value = serde_json::from_str(json).map_err(|e| {
                format!(
                    "the replacement after `=` is not JSON ({e}); quote a string: {pointer}='\"text\"'"
                )
            })?;
            (pointer, value)
        }
        None => (arg, Value::String(REDACTED_VALUE.to_owned())),
    };
    parse_pointer(pointer).map_err(|e| e.to_string())?;
    Ok((pointer.to_owned(), replacement))
}

fn format_of(args: &ExportArgs) -> ExportFormat {
    args.format
        .or_else(|| args.out.as_deref().and_then(ExportFormat::from_extension))
        .unwrap_or(ExportFormat::Jsonl)
}

pub(super) fn run(args: &ExportArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let destination = match (&args.out, args.preview) {
        (_, true) => None,
        (Some(path), false) => Some(path),
        (None, false) => {
            anyhow::bail!("export needs --out OUT (or --preview to print what it would write)")
        }
    };
    if let Some(path) = destination
        && crate::file_identity::is_same_file(path, &args.stream.file)
    {
        anyhow::bail!(
            "the output is the input: export to another file: {}",
            path.display()
        );
    }
    // Checked first, replaced last: an export that fails leaves the file.
    if let Some(path) = destination
        && path.exists()
        && !args.force
    {
        anyhow::bail!(
            "the output exists; pass --force to replace it: {}",
            path.display()
        );
    }
    let schemas = args
        .schemas
        .as_deref()
        .map(crate::schemas::SchemaSet::load)
        .transpose()?;
    let (source, options) = open_stream(&args.stream)?;
    let last = Seq::new(source.events.len() as u64);
    let to = args.to.map_or(last, Seq::new);
    let scope = match (&args.message, args.from) {
        (Some(id), _) => Scope::Repro {
            message_id: id.clone(),
            to,
        },
        (None, Some(from)) => Scope::Range(Seq::new(from), to),
        (None, None) => Scope::UpTo(to),
    };
    let source_name = args.stream.file.display().to_string();
    let format = format_of(args);
    // A fixture is named after its file, as in the corpus.
    let name = if format == ExportFormat::Conformance {
        fixture_name(args.out.as_deref(), &scope)
    } else {
        export_name(&source_name, &scope)
    };
    let context = ExportContext {
        source_name: &source_name,
        session: source.session.as_ref(),
        run_input: source.run_input.as_ref(),
        options,
        name,
        arrival_nanos: source.arrival_nanos.as_deref(),
    };
    let request = ExportRequest {
        scope,
        format,
        redaction: Redaction {
            drop_headers: args.drop_headers,
            replace: args.redact.clone(),
        },
    };
    let start = source.start(options);
    // One rendering for both: the preview is the start of what `export`
    // writes.
    let rendered =
        render_with_schemas(&source.events, &start, &request, &context, schemas.as_ref())?;
    let Some(path) = destination else {
        let preview = rendered.preview(args.preview_bytes);
        out.write_all(preview.text.as_bytes())?;
        // The notes go to standard error: standard output is the preview
        // alone, byte for byte.
        let size = preview
            .total_bytes
            .map_or_else(String::new, |n| format!(", {n} bytes"));
        let cut = if preview.truncated {
            format!(" (preview cut at {} bytes)", args.preview_bytes)
        } else {
            String::new()
        };
        eprintln!("would write {} events{size}{cut}", preview.num_events);
        for note in preview.redaction.notes() {
            eprintln!("{note}");
        }
        return Ok(EXIT_OK);
    };
    let summary = rendered.write_to(path)?;
    writeln!(
        out,
        "wrote {}: {} events",
        path.display(),
        summary.num_events
    )?;
    for note in summary.redaction.notes() {
        writeln!(out, "{note}")?;
    }
    Ok(EXIT_OK)
}
