//! `agui-replay diff`: the RFC 6902 patch from step A to step B.

use std::io::Write;

use anyhow::bail;
use clap::Args;

use super::{EXIT_OK, StreamArgs, open_stream};
use crate::diagnostic::Seq;
use crate::diff::{Comparison, DiffScope};
use crate::timeline::Timeline;

/// `diff` options.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The stream and how to replay it.
    #[command(flatten)]
    pub stream: StreamArgs,
    /// The earlier step.
    #[arg(long, value_name = "A")]
    pub from: u64,
    /// The later step.
    #[arg(long, value_name = "B")]
    pub to: u64,
    /// Diff one message (an activity's `messageId`) instead of the whole
    /// `{messages, state}` document.
    #[arg(long, value_name = "ID", conflicts_with = "scope")]
    pub message: Option<String>,
    /// Diff the whole document (default), the messages alone (an object of
    /// messages by id, as the app's "Conversation": messages are compared
    /// by id), or the state alone.
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,
}

/// `diff --scope` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    /// `{messages, state}`.
    Everything,
    /// The messages.
    Conversation,
    /// The state.
    State,
}

pub(super) fn run(args: &DiffArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let (source, options) = open_stream(&args.stream)?;
    let num_events = source.events.len() as u64;
    for step in [args.from, args.to] {
        if step > num_events {
            bail!(
                "step {step} is past the end of the stream ({num_events} events): {}",
                args.stream.file.display()
            );
        }
    }
    let timeline = Timeline::starting_from(source.start(options)).replay(source.events);
    let scope = match (&args.message, args.scope) {
        (Some(id), _) => DiffScope::Message(id.clone()),
        (None, None | Some(ScopeArg::Everything)) => DiffScope::Everything,
        (None, Some(ScopeArg::Conversation)) => DiffScope::Conversation,
        (None, Some(ScopeArg::State)) => DiffScope::State,
    };
    let comparison = Comparison::between(&timeline, scope, Seq::new(args.from), Seq::new(args.to));
    // A message absent at a step diffs as `null`: added or removed.
    if let Some(id) = &args.message
        && comparison.before.is_null()
        && comparison.after.is_null()
    {
        bail!(
            "no message {id:?} at step {} or step {}",
            args.from,
            args.to
        );
    }
    writeln!(
        out,
        "{}",
        crate::surrogate::escape_json(comparison.patch_json())
    )?;
    Ok(EXIT_OK)
}
