//! `agui-replay blame`: for a value in a message or in the state at a step,
//! the step that last set it and the history of its changes (issue 17.2).

use std::io::Write;

use anyhow::bail;
use clap::{ArgGroup, Args};
use serde_json::{Map, Value, json};

use super::{EXIT_OK, OutputFormat, StreamArgs, open_stream};
use crate::diagnostic::Seq;
use crate::search::{Blame, Change, Target, blame};
use crate::store::Recording;
use crate::timeline::Timeline;

/// Exit code: the pointer never resolved up to the step (nothing to blame).
const EXIT_NEVER_SET: u8 = 1;

/// `blame` options.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["message", "state"])))]
pub struct BlameArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Look into this message (an activity's `messageId`, or any message
    /// id): the pointer is into its JSON as `state --message` prints it.
    #[arg(long, value_name = "ID")]
    pub message: Option<String>,
    /// Look into the shared state.
    #[arg(long)]
    pub state: bool,
    /// An RFC 6901 JSON pointer, as `find` takes it: `/content/found`,
    /// `/metadata/acme.x` (in a message) or `/budget` (in the state).
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub pointer: String,
    /// The step (default: the last).
    #[arg(long, value_name = "N")]
    pub at: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

pub(super) fn run(args: &BlameArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let (source, options) = open_stream(&args.stream)?;
    let num_events = source.events.len() as u64;
    let at = args.at.unwrap_or(num_events);
    if at > num_events {
        bail!(
            "step {at} is past the end of the stream ({num_events} events): {}",
            args.stream.file.display()
        );
    }
    let target = match &args.message {
        Some(id) => Target::Message(id.clone()),
        None => Target::State,
    };
    // The index stored with a recording when there is one to believe,
    // else a replay.
    let stored = source.session.as_ref().and_then(|session| {
        let recording = Recording::open(&args.stream.file).ok()?;
        recording
            .stored_timeline_of(session.id, options, source.events.clone())
            .ok()?
            .ok()
    });
    let timeline = match stored {
        Some(timeline) => timeline,
        None => Timeline::starting_from(source.start(options)).replay(source.events.clone()),
    };
    let found = blame(&timeline, &target, &args.pointer, Seq::new(at))?;
    if let Target::Message(id) = &target
        && found.changes.is_empty()
        && !timeline.seek(Seq::new(at)).conversation().contains(id)
    {
        eprintln!("note: no message {id:?} at step {at}");
    }
    match args.format {
        OutputFormat::Text => write_text(out, &found)?,
        OutputFormat::Json => {
            super::write_json(out, &blame_json(&target, &args.pointer, &found), false)?;
            writeln!(out)?;
        }
    }
    Ok(if found.changes.is_empty() {
        EXIT_NEVER_SET
    } else {
        EXIT_OK
    })
}

/// A value as JSON, a lone UTF-16 surrogate written as its escape (issue
/// 39), as `find` writes it.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(
        || "(absent)".to_owned(),
        |value| crate::surrogate::escape_json(value.to_string()),
    )
}

fn write_text(out: &mut dyn Write, found: &Blame) -> std::io::Result<()> {
    writeln!(
        out,
        "value at step {}: {}",
        found.at,
        shown(found.value.as_ref())
    )?;
    writeln!(out, "{}", found.summary())?;
    for change in &found.changes {
        writeln!(
            out,
            "step {}: {}: {} -> {}",
            change.step,
            change.cause(),
            shown(change.old.as_ref()),
            shown(change.new.as_ref())
        )?;
    }
    Ok(())
}

fn change_json(change: &Change) -> Value {
    serde_json::to_value(change).unwrap_or(Value::Null)
}

/// `{target, message?, pointer, at, value?, summary, last?, changes,
/// eventsReplayed, replayed}`.
pub(crate) fn blame_json(target: &Target, pointer: &str, found: &Blame) -> Value {
    let mut object = Map::new();
    match target {
        Target::Message(id) => {
            object.insert("target".into(), Value::from("message"));
            object.insert("message".into(), Value::String(id.clone()));
        }
        Target::State => {
            object.insert("target".into(), Value::from("state"));
        }
    }
    object.insert("pointer".into(), Value::from(pointer));
    object.insert("at".into(), json!(found.at.get()));
    if let Some(value) = &found.value {
        object.insert("value".into(), value.clone());
    }
    object.insert("summary".into(), Value::String(found.summary()));
    if let Some(last) = found.last() {
        object.insert("last".into(), change_json(last));
    }
    object.insert(
        "changes".into(),
        Value::Array(found.changes.iter().map(change_json).collect()),
    );
    object.insert("eventsReplayed".into(), json!(found.events_replayed));
    object.insert("replayed".into(), Value::Bool(found.replayed));
    Value::Object(object)
}
