//! `agui-replay import`: stream files into a recording.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::Args;

use super::EXIT_OK;
use crate::store::{ImportOptions, ImportProgress, import_files_with};

/// `import` options.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files to import: JSON lines, JSON arrays, vector documents, SSE
    /// bodies, HAR files (one session per event-stream response), the
    /// session files of other AG-UI tools (AG-UI DevTools `.agui.jsonl`,
    /// agui-inspector exports, aimock fixtures: one session per
    /// connection), and recordings (each of their sessions, as it is).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The recording to write.
    #[arg(long, value_name = "REC")]
    pub out: PathBuf,
    /// Replace `--out` if it exists (only once the new recording is
    /// complete: a failed import leaves it as it was).
    #[arg(long)]
    pub force: bool,
    /// Also build SQL indexes on the events (by type, message and run), for
    /// SQL queries on the file. agui-replay does not need them; they make
    /// the import about a fifth slower. `upgrade --sql-indexes` adds them
    /// later.
    #[arg(long)]
    pub sql_indexes: bool,
}

pub(super) fn run(args: &ImportArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    // Checked first, replaced last (issue 12): the output is never removed
    // before the import has written its replacement beside it, and an input
    // is never its own output.
    if args.out.exists() && !args.force {
        anyhow::bail!(
            "the output exists; pass --force to replace it: {}",
            args.out.display()
        );
    }
    let terminal = std::io::stderr().is_terminal();
    // Progress is worth showing on large inputs only: on a terminal as one
    // line rewritten in place, elsewhere (a log) a line every tenth of the
    // events, not one per transaction (500 lines for 10,000,000 events).
    const LARGE: u64 = 100_000;
    let mut tenths_shown = None;
    let mut rows_written = false;
    let mut report = |p: ImportProgress| {
        if p.events_known < LARGE {
            return;
        }
        let line = if p.events_done < p.events_known {
            let tenth = p.events_done * 10 / p.events_known;
            if !terminal && tenths_shown == Some(tenth) {
                return;
            }
            tenths_shown = Some(tenth);
            format!(
                "importing: {} of {} events ({}%)",
                p.events_done,
                p.events_known,
                p.events_done * 100 / p.events_known
            )
        } else if !rows_written {
            // The rows are in; the timeline index is still being replayed,
            // encoded and stored (seconds for millions of events).
            rows_written = true;
            format!(
                "importing: all {} events written; finishing the timeline index",
                p.events_known
            )
        } else {
            return;
        };
        if terminal {
            eprint!("\r\x1b[K{line}");
        } else {
            eprintln!("{line}");
        }
    };
    let options = ImportOptions {
        sql_indexes: args.sql_indexes,
    };
    stop_on_signal();
    let imported = import_files_with(&args.inputs, &args.out, options, &mut report);
    if terminal {
        // The progress line goes, whatever the import's end.
        eprint!("\r\x1b[K");
    }
    let sessions = imported?;
    for session in &sessions {
        writeln!(
            out,
            "session {}: {} events from {}",
            session.id, session.num_events, session.source
        )?;
    }
    let total: u64 = sessions.iter().map(|s| s.num_events).sum();
    writeln!(
        out,
        "wrote {}: {} session{}, {total} events",
        args.out.display(),
        sessions.len(),
        if sessions.len() == 1 { "" } else { "s" }
    )?;
    Ok(EXIT_OK)
}

/// On Ctrl+C or SIGTERM, removes the partial recording being written and
/// exits (130 or 143, as the signal would have): a stopped import leaves no
/// `.partial` file behind (issue 38). The handlers are in place before this
/// returns; without them the signal kills the import as before.
fn stop_on_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        let signals = {
            let _context = runtime.enter();
            signal(SignalKind::interrupt()).and_then(|interrupt| {
                signal(SignalKind::terminate()).map(|terminate| (interrupt, terminate))
            })
        };
        let Ok((mut interrupt, mut terminate)) = signals else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .name("import-signals".into())
            .spawn(move || {
                let code = runtime.block_on(async {
                    tokio::select! {
                        _ = interrupt.recv() => 130,
                        _ = terminate.recv() => 143,
                    }
                });
                crate::store::remove_partial_files();
                eprintln!("\nimport stopped: the partial recording was removed");
                std::process::exit(code);
            });
        drop(spawned);
    }
}
