//! `agui-replay upgrade FILE`: migrates a recording to the current schema
//! and stores the timeline index of its ended sessions (issue 14).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::EXIT_OK;
use crate::store::{Upgraded, upgrade};

/// `upgrade` options.
#[derive(Debug, Args)]
pub struct UpgradeArgs {
    /// The recording to upgrade in place.
    #[arg(value_name = "REC")]
    pub file: PathBuf,
}

pub(super) fn run(args: &UpgradeArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    match upgrade(&args.file)? {
        Upgraded::UpToDate { version } => writeln!(
            out,
            "{}: up to date (schema version {version}, every ended session indexed)",
            args.file.display()
        )?,
        Upgraded::Upgraded { from, to, indexed } => {
            let migrated = if from == to {
                format!("schema version {to}")
            } else {
                format!("schema version {from} → {to}")
            };
            writeln!(
                out,
                "{}: upgraded ({migrated}); stored the timeline index of {indexed} session{}",
                args.file.display(),
                if indexed == 1 { "" } else { "s" }
            )?;
        }
    }
    Ok(EXIT_OK)
}
