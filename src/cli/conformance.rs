//! `agui-replay conformance DIR...`: run AG-UI conformance fixtures and
//! print, per fixture, what passed, what failed (which key, why) and what
//! was not judged, then one table line per folder and profile.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{EXIT_OK, EXIT_RUN_FAILED, OutputFormat, ProtocolArg};
use crate::conformance::{FolderResult, Verdict, folder_version, read_dir, run_folder};
use crate::replay::{Options, Profile};

/// `conformance` options.
#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Folders of fixtures (`*.json`), such as `tests/conformance/1.0`.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// One profile (default: both, spec and ag-ui-client-1.0).
    #[arg(long, value_enum)]
    pub profile: Option<Profile>,
    /// The version the consumer implements (default: the folder's name
    /// when it is a version, `1.0`, `1.1` or `draft`, else 1.1). The
    /// ag-ui-client-1.0 profile is a 1.0 consumer whatever this says.
    #[arg(long, value_enum)]
    pub protocol: Option<ProtocolArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Print every fixture, not only those that failed.
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    folders: &'a [FolderResult],
    passed: bool,
}

pub(super) fn run(args: &ConformanceArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let profiles: Vec<Profile> = match args.profile {
        Some(profile) => vec![profile],
        None => Profile::ALL.to_vec(),
    };
    let mut results = Vec::new();
    for dir in &args.dirs {
        let fixtures = read_dir(dir)?;
        if fixtures.is_empty() {
            anyhow::bail!("no fixtures (*.json) in {}", dir.display());
        }
        let protocol = match args.protocol {
            Some(arg) => arg.into(),
            None => folder_version(dir).unwrap_or_default(),
        };
        for &profile in &profiles {
            let options = Options {
                profile,
                protocol,
                ..Options::default()
            };
            results.push(run_folder(&dir.display().to_string(), &fixtures, options));
        }
    }
    let passed = results
        .iter()
        .all(|folder| folder.fixtures.iter().all(|f| f.passed()));
    match args.format {
        OutputFormat::Json => {
            serde_json::to_writer_pretty(
                &mut *out,
                &Report {
                    folders: &results,
                    passed,
                },
            )?;
            writeln!(out)?;
        }
        OutputFormat::Text => write_text(&results, args.verbose, out)?,
    }
    Ok(if passed { EXIT_OK } else { EXIT_RUN_FAILED })
}

fn write_text(results: &[FolderResult], verbose: bool, out: &mut dyn Write) -> std::io::Result<()> {
    for folder in results {
        for fixture in &folder.fixtures {
            let passed = fixture.passed();
            if passed && !verbose {
                continue;
            }
            writeln!(
                out,
                "{} {} [{} {}] {} (judged {}, not judged {})",
                if passed { "PASS" } else { "FAIL" },
                folder.folder,
                folder.profile,
                folder.protocol,
                fixture.name,
                fixture.judged(),
                fixture.not_judged().count()
            )?;
            for key in &fixture.keys {
                match &key.verdict {
                    Verdict::Failed(why) => writeln!(out, "    failed {}: {why}", key.key)?,
                    Verdict::NotJudged(why) if verbose => {
                        writeln!(out, "    not judged {}: {why}", key.key)?;
                    }
                    _ => {}
                }
            }
        }
    }
    let width = results
        .iter()
        .map(|f| f.folder.len())
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "{:<width$}  {:<16}  {:<8}  {:>8}  {:>6}  {:>11}  {:>15}",
        "folder", "profile", "protocol", "fixtures", "passed", "keys judged", "keys not judged"
    )?;
    for folder in results {
        let summary = folder.summary();
        writeln!(
            out,
            "{:<width$}  {:<16}  {:<8}  {:>8}  {:>6}  {:>11}  {:>15}",
            folder.folder,
            folder.profile,
            folder.protocol,
            summary.fixtures,
            summary.passed,
            summary.keys_judged,
            summary.keys_not_judged
        )?;
    }
    Ok(())
}
