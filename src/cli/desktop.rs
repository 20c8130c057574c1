//! `agui-replay desktop install|uninstall` (issue 45): the app in the
//! Linux launcher, and the file types it opens, for this user
//! ([`crate::desktop`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::EXIT_OK;
use crate::desktop::{self, Refresh};

/// `desktop` options.
#[derive(Debug, Args)]
pub struct DesktopArgs {
    /// Install or uninstall.
    #[command(subcommand)]
    pub action: DesktopAction,
}

/// `desktop` subcommands.
#[derive(Clone, Copy, Debug, Subcommand)]
pub enum DesktopAction {
    /// Write the desktop entry (which runs this binary, where it is now),
    /// the icon and the file types (recordings, `.agui.jsonl`, HAR) into
    /// the user's data folder ($XDG_DATA_HOME, else ~/.local/share), and
    /// refresh the MIME and desktop databases where their tools are
    /// installed.
    Install,
    /// Remove exactly the files `desktop install` writes, and refresh the
    /// databases.
    Uninstall,
}

pub(super) fn run(args: &DesktopArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let data_dir = data_dir()?;
    let (verb, files) = match args.action {
        DesktopAction::Install => {
            let exe = std::env::current_exe()
                .and_then(|exe| exe.canonicalize())
                .context("cannot tell where this binary is")?;
            ("wrote", desktop::install(&data_dir, &exe)?)
        }
        DesktopAction::Uninstall => ("removed", desktop::uninstall(&data_dir)?),
    };
    for file in &files {
        writeln!(out, "{verb} {}", file.display())?;
    }
    if files.is_empty() {
        writeln!(out, "nothing to remove in {}", data_dir.display())?;
    }
    for refresh in desktop::refresh(&data_dir) {
        match refresh {
            Refresh::Ran(tool) => writeln!(out, "ran {tool}")?,
            Refresh::NotInstalled(tool) => writeln!(out, "skipped {tool} (not installed)")?,
            Refresh::Failed(tool, why) => eprintln!("warning: {tool} failed: {why}"),
        }
    }
    Ok(EXIT_OK)
}

/// The user's data folder, as the XDG base directory rules say.
#[cfg(feature = "app")]
fn data_dir() -> anyhow::Result<PathBuf> {
    crate::ui::demo::user_data_dir()
        .context("no data folder to install into: neither XDG_DATA_HOME nor HOME is set")
}

#[cfg(not(feature = "app"))]
fn data_dir() -> anyhow::Result<PathBuf> {
    anyhow::bail!(
        "this build has no desktop app (built without the `app` feature), so there is nothing \
         to put in the launcher"
    )
}
