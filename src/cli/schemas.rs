//! `agui-replay schemas infer FILE… --out DIR` (issue 42): one JSON Schema
//! per activity type, and the state's, inferred from every content of the
//! recordings, for `check --schemas DIR` (S1).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::{EXIT_OK, ProtocolArg, StreamArgs, open_stream};
use crate::replay::Profile;
use crate::schemas::Inference;

/// `schemas` options.
#[derive(Debug, Args)]
pub struct SchemasArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: SchemasCommand,
}

/// The `schemas` subcommands.
#[derive(Debug, Subcommand)]
pub enum SchemasCommand {
    /// Write one schema per activity type (`DIR/<activityType>.schema.json`,
    /// with `/`, a leading `.` and `%` percent-encoded) and the state's
    /// (`DIR/_state.schema.json`), from every content each had at every
    /// step of the given streams: member types, members present in every
    /// content required, array items merged. Sorted and pretty, to commit
    /// and edit by hand; `check --schemas DIR` on the same streams reports
    /// nothing.
    Infer(InferArgs),
}

/// `schemas infer` options.
#[derive(Debug, Args)]
pub struct InferArgs {
    /// The streams or recordings (every session of a recording, unless
    /// `--session` names one).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The folder to write (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace schema files that exist (they are meant to be edited by
    /// hand, so they are kept unless this is given).
    #[arg(long)]
    pub force: bool,
    /// The session of each recording (or exchange of a HAR file).
    #[arg(long, value_name = "N")]
    pub session: Option<i64>,
    /// The consumer to imitate (default: spec, or the profile a vector
    /// document declares).
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// The AG-UI version the consumer implements.
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1_1)]
    pub protocol: ProtocolArg,
}

pub(super) fn run(args: &SchemasArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    match &args.command {
        SchemasCommand::Infer(infer) => run_infer(infer, out),
    }
}

fn run_infer(args: &InferArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let mut inference = Inference::new();
    let mut streams = 0usize;
    for file in &args.files {
        for session in sessions_of(file, args.session)? {
            let stream = StreamArgs {
                file: file.clone(),
                profile: args.profile,
                best_effort: false,
                protocol: args.protocol,
                session,
            };
            let (source, options) = open_stream(&stream)?;
            inference.see_stream(
                source.start(options),
                source.run_input.as_ref(),
                &source.events,
            );
            streams += 1;
        }
    }
    let schemas = inference.schemas();
    // Checked first, written last: nothing is written when one exists.
    let existing: Vec<String> = schemas
        .iter()
        .map(|s| args.out.join(&s.file_name))
        .filter(|path| path.exists())
        .map(|path| path.display().to_string())
        .collect();
    if !existing.is_empty() && !args.force {
        anyhow::bail!(
            "not overwriting schema files that may have been edited by hand; pass --force to replace them: {}",
            existing.join(", ")
        );
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create the folder {}", args.out.display()))?;
    for schema in &schemas {
        let path = args.out.join(&schema.file_name);
        std::fs::write(&path, schema.text())
            .with_context(|| format!("cannot write {}", path.display()))?;
        writeln!(out, "wrote {} ({})", path.display(), schema.title)?;
    }
    let plural = if streams == 1 { "" } else { "s" };
    if schemas.is_empty() {
        writeln!(
            out,
            "no activity content and no state in {streams} stream{plural}: no schema written to {}",
            args.out.display()
        )?;
    } else {
        writeln!(
            out,
            "{} schema{} from {streams} stream{plural}",
            schemas.len(),
            if schemas.len() == 1 { "" } else { "s" }
        )?;
    }
    Ok(EXIT_OK)
}

/// The sessions to read of `file`: the one asked for, else every session
/// of a recording, else the file's one stream.
fn sessions_of(file: &std::path::Path, session: Option<i64>) -> anyhow::Result<Vec<Option<i64>>> {
    if session.is_some() || file == std::path::Path::new("-") || !crate::store::file_is_sqlite(file)
    {
        return Ok(vec![session]);
    }
    let recording = crate::store::Recording::open(file)
        .with_context(|| format!("cannot open the recording {}", file.display()))?;
    let ids: Vec<Option<i64>> = recording
        .sessions()
        .iter()
        .map(|s| Some(s.id.get()))
        .collect();
    // No session at all: opening it says so.
    Ok(if ids.is_empty() { vec![None] } else { ids })
}
