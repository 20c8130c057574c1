//! The `agui-replay` binary: parses the command line and hands over to
//! [`agui_replay::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    agui_replay::cli::main()
}
