//! `agui-replay state`: the state at step N.

use std::io::Write;

use anyhow::bail;

use super::{EXIT_OK, StateArgs, open_stream};
use crate::diagnostic::Seq;
use crate::replay::replay_from_to;

pub(super) fn run(args: &StateArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let (source, options) = open_stream(&args.stream)?;
    let num_events = source.events.len() as u64;
    if args.at > num_events {
        bail!(
            "step {} is past the end of the stream ({num_events} events): {}",
            args.at,
            args.stream.file.display()
        );
    }
    let replayer = replay_from_to(source.start(options), &source.events, Seq::new(args.at));
    if let Some(fatal) = replayer.fatal()
        && !options.best_effort
    {
        eprintln!(
            "note: the run failed at seq {} ({}); events after it are not applied (see --best-effort)",
            fatal.seq, fatal.code
        );
    }
    let value = match &args.message {
        None => replayer.document(),
        Some(id) => match replayer.conversation().get(id) {
            Some(message) => message.to_json(),
            None => bail!("no message {id:?} at step {}", args.at),
        },
    };
    super::write_json(out, &value, true)?;
    writeln!(out)?;
    Ok(EXIT_OK)
}
