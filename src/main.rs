//! The `agui-replay` binary: parses the command line and hands over to
//! [`agui_replay::cli`], or to [`bench`] for `agui-replay bench`.

mod bench;

use std::io::Write;
use std::process::ExitCode;

use agui_replay::cli::{self, OpenArgs};
use anyhow::Context;
use clap::{Parser, Subcommand};

/// jemalloc: fast with the many small allocations of JSON trees, and it
/// keeps the statistics `agui-replay bench` reads to measure memory.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Record/replay debugger for AG-UI agent event streams. Without a
/// subcommand it opens the desktop app (on FILE, or on the bundled demo).
#[derive(Debug, Parser)]
#[command(name = "agui-replay", version = cli::VERSION, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Option<Command>,
    /// The app's options, without a subcommand.
    #[command(flatten)]
    open: OpenArgs,
}

/// The library's subcommands, and `bench`, which only the binary has.
#[derive(Debug, Subcommand)]
enum Command {
    #[command(flatten)]
    Engine(cli::Command),
    /// Benchmarks, printed as JSON figures.
    #[command(subcommand)]
    Bench(bench::cli::BenchCommand),
}

fn main() -> ExitCode {
    let Cli { command, open } = match cli::parse_args::<Cli>() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let result = match command {
        Some(Command::Bench(command)) => run_bench(&command),
        Some(Command::Engine(command)) => cli::run(cli::Cli {
            command: Some(command),
            open,
        }),
        None => cli::run(cli::Cli {
            command: None,
            open,
        }),
    };
    cli::exit_code(result)
}

fn run_bench(command: &bench::cli::BenchCommand) -> anyhow::Result<u8> {
    let mut stdout = std::io::stdout().lock();
    let code = bench::cli::run(command, &mut stdout)?;
    stdout.flush().context("cannot write to standard output")?;
    Ok(code)
}
