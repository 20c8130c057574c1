//! `agui-replay find`: the steps where a value in a message or in the state
//! became what the query looks for, like `grep` over time.

use std::io::Write;
use std::ops::ControlFlow;

use anyhow::{anyhow, bail};
use clap::{ArgGroup, Args};
use serde_json::{Map, Value, json};

use super::{EXIT_OK, OutputFormat, StreamArgs, open_stream};
use crate::diagnostic::Seq;
use crate::search::{Match, Predicate, Query, Target, find_in_log};

/// Exit code: no step matched (as `grep` does).
const EXIT_NO_MATCH: u8 = 1;

/// `find` options.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["message", "state"])))]
#[command(group(ArgGroup::new("predicate").args(["equals", "contains", "exists"])))]
pub struct FindArgs {
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
    /// An RFC 6901 JSON pointer: `/content/found`, `/metadata/acme.x`,
    /// `/activityType` (in a message) or `/budget` (in the state); `""` is
    /// the whole message or state.
    #[arg(long, value_name = "P", allow_hyphen_values = true)]
    pub pointer: String,
    /// Match where the value equals this JSON (quote strings: '"done"').
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub equals: Option<String>,
    /// Match where the value contains this JSON: a substring of a string,
    /// an element of an array, a subset of an object's members, or a key of
    /// an object. Text that is not JSON is a string.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub contains: Option<String>,
    /// Match where the pointer resolves (the default).
    #[arg(long)]
    pub exists: bool,
    /// Only matches after step N.
    #[arg(long, value_name = "N")]
    pub from: Option<u64>,
    /// Stop at the first match.
    #[arg(long)]
    pub first: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}

pub(super) fn run(args: &FindArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let query = query(args)?;
    let (source, options) = open_stream(&args.stream)?;
    let num_events = source.events.len() as u64;
    if let Some(from) = args.from
        && from > num_events
    {
        bail!(
            "step {from} is past the end of the stream ({num_events} events): {}",
            args.stream.file.display()
        );
    }
    let after = args.from.map(Seq::new);
    let mut matches = Vec::new();
    let end = find_in_log(source.start(options), &source.events, &query, |found| {
        if after.is_some_and(|after| found.step <= after) {
            return ControlFlow::Continue(());
        }
        matches.push(found);
        if args.first {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if end.step().get() == num_events {
        if let Some(fatal) = end.fatal()
            && !options.best_effort
        {
            eprintln!(
                "note: the run failed at seq {} ({}); events after it are not applied (see --best-effort)",
                fatal.seq, fatal.code
            );
        }
        if let Target::Message(id) = &query.target
            && matches.is_empty()
            && !end.conversation().contains(id)
        {
            eprintln!("note: no message {id:?} at the last step ({num_events})");
        }
    }
    match args.format {
        OutputFormat::Text => {
            for found in &matches {
                let value = found.value.as_ref().map_or_else(
                    || "(absent)".to_owned(),
                    |value| crate::surrogate::escape_json(value.to_string()),
                );
                writeln!(out, "step {}: {value}", found.step)?;
            }
        }
        OutputFormat::Json => {
            let document = json!({
                "query": query_json(&query),
                "matches": matches.iter().map(match_json).collect::<Vec<_>>(),
            });
            super::write_json(out, &document, false)?;
            writeln!(out)?;
        }
    }
    Ok(if matches.is_empty() {
        EXIT_NO_MATCH
    } else {
        EXIT_OK
    })
}

/// The query the options describe.
fn query(args: &FindArgs) -> anyhow::Result<Query> {
    let target = match &args.message {
        Some(id) => Target::Message(id.clone()),
        None => Target::State,
    };
    let predicate = match (&args.equals, &args.contains) {
        (Some(text), _) => Predicate::Equals(serde_json::from_str(text).map_err(|e| {
            anyhow!("--equals is not JSON: {e} (a string needs quotes: --equals '\"{text}\"')")
        })?),
        (None, Some(text)) => Predicate::Contains(
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone())),
        ),
        (None, None) => Predicate::Exists,
    };
    Ok(Query::new(target, args.pointer.clone(), predicate)?)
}

fn query_json(query: &Query) -> Value {
    let mut object = Map::new();
    match &query.target {
        Target::Message(id) => {
            object.insert("target".into(), Value::from("message"));
            object.insert("message".into(), Value::String(id.clone()));
        }
        Target::State => {
            object.insert("target".into(), Value::from("state"));
        }
    }
    object.insert("pointer".into(), Value::String(query.pointer.clone()));
    let (name, value) = match &query.predicate {
        Predicate::Exists => ("exists", None),
        Predicate::Equals(value) => ("equals", Some(value)),
        Predicate::Contains(value) => ("contains", Some(value)),
    };
    object.insert("predicate".into(), Value::from(name));
    if let Some(value) = value {
        object.insert("value".into(), value.clone());
    }
    Value::Object(object)
}

/// `{"step": N, "value": …}`, without `value` when the pointer did not
/// resolve.
fn match_json(found: &Match) -> Value {
    let mut object = Map::new();
    object.insert("step".into(), Value::from(found.step.get()));
    if let Some(value) = &found.value {
        object.insert("value".into(), value.clone());
    }
    Value::Object(object)
}
