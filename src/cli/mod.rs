//! The command line: `check`, `state`, `export`, `rules` and the others
//! (see `PRODUCT.md` for the contract). Errors are handled here, once:
//! printed with their chain, exit code 2. Problems in the stream are
//! diagnostics, not errors.

mod blame;
mod check;
mod compare;
mod conformance;
mod desktop;
mod diff;
mod export;
mod find;
mod import;
mod record;
mod rules;
mod schemas;
mod serve;
mod state;
mod timing;
mod upgrade;
mod whatif;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::open::{Source, open_source};
use crate::protocol::ProtocolVersion;
use crate::replay::{Options, Profile};

/// Exit code: the run replayed without a fatal error.
pub const EXIT_OK: u8 = 0;
/// Exit code: a fatal error failed the run.
pub const EXIT_RUN_FAILED: u8 = 1;
/// Exit code: bad usage, or input that cannot be read.
pub const EXIT_USAGE: u8 = 2;

/// What `--version` prints after the name: the crate's version and the
/// commit it was built from, `0.1.0 (commit 4b8d9de1a2b3)`, or `0.1.0
/// (unknown commit)` for a build outside a git checkout (issue 45; build.rs
/// finds the commit).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("AGUI_REPLAY_COMMIT"),
    ")"
);

/// Record/replay debugger for AG-UI agent event streams. Without a
/// subcommand it opens the desktop app (on FILE, or on the bundled demo).
#[derive(Debug, Parser)]
#[command(name = "agui-replay", version = VERSION, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The app's options, without a subcommand.
    #[command(flatten)]
    pub open: OpenArgs,
}

/// `open` options (also the default command).
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// A recording or stream file to open (default: the bundled demo).
    pub file: Option<PathBuf>,
    /// Close the window after this many seconds (smoke tests, screenshots).
    #[arg(long, value_name = "SECS", hide = true)]
    pub exit_after: Option<f64>,
    /// The colour theme for this run (default: the one chosen in View ›
    /// Theme, else the system's); not kept.
    #[arg(long, value_enum)]
    pub theme: Option<ThemeArg>,
}

/// `--theme` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ThemeArg {
    /// Light text on a dark background.
    Dark,
    /// Dark text on a light background.
    Light,
    /// The system's preference.
    System,
}

impl ThemeArg {
    /// The name the app keeps a theme under.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dark => "dark",
            Self::Light => "light",
            Self::System => "system",
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the desktop app on a file (the default without a subcommand).
    Open(OpenArgs),
    /// Replay a stream and print its diagnostics.
    ///
    /// Exit code 0 if no fatal error, 1 if the run failed, 2 on bad usage or
    /// unreadable input.
    Check(CheckArgs),
    /// Print the state at step N: `{messages, state}`, or one message.
    State(StateArgs),
    /// The RFC 6902 patch from step A to step B (of one message, or of the
    /// whole `{messages, state}` document).
    Diff(diff::DiffArgs),
    /// Two recordings of the same agent side by side: where their events
    /// and their states first part, and what differs after that.
    ///
    /// The events are aligned by type, `messageId`, `toolCallId` and order
    /// (not by position), and both streams replayed and compared at aligned
    /// steps.
    ///
    /// Exit code 0 if the two agree, 1 if they differ, 2 on bad usage or
    /// unreadable input.
    Compare(compare::CompareArgs),
    /// What if an event were different: the stream replayed with events
    /// dropped, replaced or inserted, compared with the recording.
    ///
    /// `--drop N`, `--replace N=JSON` and `--insert N=JSON` (before step N)
    /// name steps as `check` numbers them (step 0 is the run input). The
    /// output is what `compare` prints for the recording (A) and the edited
    /// stream (B), then the edited replay's outcome and diagnostics;
    /// `--out` writes the edited stream. The input is never modified.
    ///
    /// Exit code 0 if the edits change neither the outcome, the messages
    /// nor the state, 1 if they do, 2 on bad usage (a step that does not
    /// exist, an invalid event) or unreadable input.
    Whatif(whatif::WhatifArgs),
    /// The steps where a value in a message or in the state became what you
    /// look for, like grep over time: `--message ID` or `--state`, a JSON
    /// `--pointer`, and `--equals JSON`, `--contains JSON` or `--exists`.
    ///
    /// A step matches when the value there satisfies the test and differs
    /// from the step before (or did not satisfy it): a value that keeps
    /// matching gives one line. Exit code 0 if a step matched, 1 if none, 2
    /// on bad usage or unreadable input.
    Find(find::FindArgs),
    /// For a value in a message or in the state at step N (default: the
    /// last): the step that last set it and the history of its changes,
    /// each step with its event, the delta's operation and old -> new:
    /// `--message ID` or `--state`, a JSON `--pointer` as `find` takes it.
    ///
    /// Exit code 0 if the value was ever set, 1 if the pointer never
    /// resolved up to the step, 2 on bad usage or unreadable input.
    Blame(blame::BlameArgs),
    /// Write stream files (JSON lines, arrays, SSE bodies, HAR) into a
    /// recording.
    Import(import::ImportArgs),
    /// Bring a recording to the current schema version and store the
    /// timeline index of its ended sessions, so that it opens without
    /// replaying. Opening never modifies a recording; this does, in place.
    ///
    /// Exit code 0 if upgraded or already up to date, 2 if the file is not
    /// a recording this build can write.
    Upgrade(upgrade::UpgradeArgs),
    /// Export the stream, a range of it, or one activity's minimal repro
    /// (`--message ID --to N`) as JSON lines, SSE, a vector, a conformance
    /// fixture of the AG-UI corpus or a recording.
    Export(export::ExportArgs),
    /// How the stream spent its time: per run, the time to the first event,
    /// text and activity, the longest gap, tool-call durations, events per
    /// second, and the stalls (gaps over `--stall-after`, T1). Times an event
    /// does not have are marked as invented.
    Timing(timing::TimingArgs),
    /// The recording proxy: put it between your front end and your agent.
    Record(record::RecordArgs),
    /// Post a run input to an agent and record the event stream.
    Run(record::RunArgs),
    /// Serve a recording as an AG-UI endpoint: point your front end at it
    /// and it receives the recorded session (at the recorded timing, up to
    /// a step, or step by step); what it posts is checked (R50, E13).
    Serve(serve::ServeArgs),
    /// Run AG-UI conformance fixtures (folders of `*.json` stream fixtures,
    /// as `tests/conformance/1.0`) and print what passed, per fixture and
    /// per folder and profile (§11 of the replay rules).
    ///
    /// Exit code 0 if every fixture passed, 1 if some failed, 2 on bad usage
    /// or unreadable fixtures.
    Conformance(conformance::ConformanceArgs),
    /// Activity content schemas: `schemas infer FILE… --out DIR` writes
    /// one JSON Schema per activity type (and `_state.schema.json` for the
    /// state) from every content of the recordings, for `check --schemas
    /// DIR` (S1).
    Schemas(schemas::SchemasArgs),
    /// The replay rules (built in): one rule by its id (`R14`) or by a
    /// diagnostic code (`activity.patch.failed`), a section (`§11`), or all.
    Rules(rules::RulesArgs),
    /// Linux: put the app in the launcher and register the files it opens
    /// (`desktop install`), or take it out (`desktop uninstall`).
    Desktop(desktop::DesktopArgs),
}

/// What every command that reads a stream takes.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// The stream: a recording, .jsonl, .json (array or vector document), an
    /// SSE body (.sse, .txt, or detected by `data:` lines), a HAR file, or
    /// `-` for standard input.
    pub file: PathBuf,
    /// The consumer to imitate (default: spec, or the profile a vector
    /// document declares).
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// Keep applying events after a fatal error (R43).
    #[arg(long)]
    pub best_effort: bool,
    /// The AG-UI version the consumer implements (§11): declarations of a
    /// newer one warn, members of a newer schema are stripped; `draft` is
    /// the working draft, 1.1's schema with stricter rules (C12). The
    /// ag-ui-client-1.0 profile is a 1.0 consumer whatever this says.
    #[arg(long, value_enum, default_value_t = ProtocolArg::V1_1)]
    pub protocol: ProtocolArg,
    /// Which session of a recording (or exchange of a HAR file, or
    /// connection of another AG-UI tool's session file) to replay; needed
    /// when there are several.
    #[arg(long, value_name = "N")]
    pub session: Option<i64>,
}

/// `--profile` values: the replay's profiles, by their names
/// ([`Profile::as_str`]), with what `--help` says of each.
impl ValueEnum for Profile {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Self::Spec => "The rules as written",
            Self::AgUiClient10 => "What the reference client `@ag-ui/client` 1.0.0 does",
        };
        Some(PossibleValue::new(self.as_str()).help(help))
    }
}

/// `--protocol` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// AG-UI 1.0.
    #[value(name = "1.0")]
    V1_0,
    /// AG-UI 1.1 (the default).
    #[value(name = "1.1")]
    V1_1,
    /// The protocol's working draft: 1.1's schema, stricter rules (C12).
    #[value(name = "draft")]
    Draft,
}

impl From<ProtocolArg> for ProtocolVersion {
    fn from(arg: ProtocolArg) -> Self {
        match arg {
            ProtocolArg::V1_0 => ProtocolVersion::V1_0,
            ProtocolArg::V1_1 => ProtocolVersion::V1_1,
            ProtocolArg::Draft => ProtocolVersion::Draft,
        }
    }
}

/// `check` options.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Report a gap between two events longer than this as `stream.stall`
    /// (T1): `2s`, `1.5s`, `500ms`. Only the stream's own times count,
    /// never invented ones.
    #[arg(long, value_name = "DURATION", default_value = "2s",
          value_parser = crate::timing::parse_duration_nanos)]
    pub stall_after: u64,
    /// Validate each activity's content after every snapshot or delta
    /// against `DIR/<activityType>.schema.json`, and the state against
    /// `DIR/_state.schema.json` (S1): `activity.content.schema` and
    /// `state.content.schema` warnings where a violation appears.
    #[arg(long, value_name = "DIR")]
    pub schemas: Option<PathBuf>,
}

/// `check --format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One line per diagnostic and a summary line.
    Text,
    /// One JSON object (the contract of `PRODUCT.md`).
    Json,
}

/// `state` options.
#[derive(Debug, Args)]
pub struct StateArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// The step: the state after events 1..=N (0 is the start).
    #[arg(long, value_name = "N")]
    pub at: u64,
    /// Print only this message (an activity's `messageId`, or any message id).
    #[arg(long, value_name = "ID")]
    pub message: Option<String>,
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    match parse_args::<Cli>() {
        Ok(cli) => exit_code(run(cli)),
        Err(code) => code,
    }
}

/// Parses the process arguments as `P` (this crate's [`Cli`], or the
/// binary's, which adds `bench`); help and version go to stdout with exit
/// 0, usage errors to stderr with exit 2.
pub fn parse_args<P: Parser>() -> Result<P, ExitCode> {
    P::try_parse().map_err(|err| {
        let _ = err.print();
        ExitCode::from(if err.use_stderr() {
            EXIT_USAGE
        } else {
            EXIT_OK
        })
    })
}

/// The process exit code of a command's result, printing the error chain
/// once (the binary's own subcommands end here too).
pub fn exit_code(result: anyhow::Result<u8>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            eprintln!("error: {}", crate::error::error_chain(err.as_ref()));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// A reader that went away (`agui-replay check … | head`) is not an error.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Runs a parsed command line; returns the exit code, or an error for bad
/// usage or unreadable input.
pub fn run(cli: Cli) -> anyhow::Result<u8> {
    let mut stdout = std::io::stdout().lock();
    let code = match cli.command {
        Some(Command::Check(args)) => check::run(&args, &mut stdout)?,
        Some(Command::State(args)) => state::run(&args, &mut stdout)?,
        Some(Command::Diff(args)) => diff::run(&args, &mut stdout)?,
        Some(Command::Compare(args)) => compare::run(&args, &mut stdout)?,
        Some(Command::Whatif(args)) => whatif::run(&args, &mut stdout)?,
        Some(Command::Find(args)) => find::run(&args, &mut stdout)?,
        Some(Command::Blame(args)) => blame::run(&args, &mut stdout)?,
        Some(Command::Import(args)) => import::run(&args, &mut stdout)?,
        Some(Command::Export(args)) => export::run(&args, &mut stdout)?,
        Some(Command::Upgrade(args)) => upgrade::run(&args, &mut stdout)?,
        Some(Command::Timing(args)) => timing::run(&args, &mut stdout)?,
        Some(Command::Record(args)) => record::record(&args, &mut stdout)?,
        Some(Command::Run(args)) => record::run(&args, &mut stdout)?,
        Some(Command::Serve(args)) => serve::run(&args, &mut stdout)?,
        Some(Command::Conformance(args)) => conformance::run(&args, &mut stdout)?,
        Some(Command::Rules(args)) => rules::run(&args, &mut stdout)?,
        Some(Command::Schemas(args)) => schemas::run(&args, &mut stdout)?,
        Some(Command::Desktop(args)) => desktop::run(&args, &mut stdout)?,
        Some(Command::Open(args)) => open_app(&args)?,
        None => open_app(&cli.open)?,
    };
    stdout.flush().context("cannot write to standard output")?;
    Ok(code)
}

fn open_app(args: &OpenArgs) -> anyhow::Result<u8> {
    let exit_after = args
        .exit_after
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(std::time::Duration::from_secs_f64);
    // A file that cannot be read opens the window with the reason in it
    // (issue 13, point 8); without one the app opens the demo.
    run_app(args.file.clone(), exit_after, args.theme)
}

#[cfg(feature = "app")]
fn run_app(
    file: Option<PathBuf>,
    exit_after: Option<std::time::Duration>,
    theme: Option<ThemeArg>,
) -> anyhow::Result<u8> {
    crate::ui::run_app(file, exit_after, theme.map(ThemeArg::name))?;
    Ok(EXIT_OK)
}

#[cfg(not(feature = "app"))]
fn run_app(
    file: Option<PathBuf>,
    _exit_after: Option<std::time::Duration>,
    _theme: Option<ThemeArg>,
) -> anyhow::Result<u8> {
    anyhow::bail!(
        "this build has no desktop app (built without the `app` feature); \
         the subcommands work, e.g. `agui-replay check {}`",
        file.unwrap_or_else(crate::open::demo_recording).display()
    )
}

/// Opens the stream a command names, and the options to replay it with.
/// Writes `value` as JSON: a lone UTF-16 surrogate the replay holds is
/// written as its escape (`\ud83d`), as `JSON.stringify` writes it (issue
/// 39).
fn write_json(
    out: &mut dyn Write,
    value: &impl serde::Serialize,
    pretty: bool,
) -> anyhow::Result<()> {
    let text = if pretty {
        serde_json::to_string_pretty(value)?
    } else {
        serde_json::to_string(value)?
    };
    out.write_all(crate::surrogate::escape_json(text).as_bytes())?;
    Ok(())
}

fn open_stream(args: &StreamArgs) -> anyhow::Result<(Source, Options)> {
    let source = open_source(&args.file, args.session)?;
    let profile = match (args.profile, &source.declared_profile) {
        (Some(profile), _) => profile,
        (None, Some(declared)) => declared.parse::<Profile>().map_err(|e| {
            let by = match &source.session {
                Some(session) => format!("session {} of the recording", session.id),
                None => "the vector document".to_owned(),
            };
            anyhow::anyhow!("{e}, declared by {by} {}", args.file.display())
        })?,
        (None, None) => Profile::Spec,
    };
    let options = Options {
        profile,
        best_effort: args.best_effort,
        protocol: args.protocol.into(),
    };
    Ok((source, options))
}
