//! `agui-replay upgrade FILE`: migrates a recording to the current schema
//! and stores the timeline index of its ended sessions (issue 14).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::EXIT_OK;
use crate::store::{Upgraded, upgrade_with};

/// `upgrade` options.
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// The recording to upgrade in place.
    #[arg(value_name = "REC")]
    pub file: PathBuf,
    /// Also build the recording's SQL indexes (by event type, message and
    /// run) if it lacks them: for SQL queries on the file; agui-replay
    /// itself does not use them.
    #[arg(long)]
    pub sql_indexes: bool,
}

pub(super) fn run(args: &UpgradeArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    match upgrade_with(&args.file, args.sql_indexes)? {
        Upgraded::UpToDate { version } => writeln!(
            out,
            "{}: up to date (schema version {version}, every ended session indexed{})",
            args.file.display(),
            if args.sql_indexes {
                ", SQL indexes present"
            } else {
                ""
            }
        )?,
        Upgraded::Upgraded {
            from,
            to,
            indexed,
            sql_indexes,
        } => {
            let migrated = if from == to {
                format!("schema version {to}")
            } else {
                format!("schema version {from} → {to}")
            };
            let mut done = Vec::new();
            if indexed > 0 || !sql_indexes {
                let plural = if indexed == 1 { "" } else { "s" };
                done.push(format!(
                    "stored the timeline index of {indexed} session{plural}"
                ));
            }
            if sql_indexes {
                done.push("built the SQL indexes".to_owned());
            }
            writeln!(
                out,
                "{}: upgraded ({migrated}); {}",
                args.file.display(),
                done.join("; ")
            )?;
        }
    }
    Ok(EXIT_OK)
}
