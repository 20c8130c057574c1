//! The `agui-replay` binary: parses the command line and hands over to
//! [`agui_replay::cli`].

use std::process::ExitCode;

/// jemalloc: fast with the many small allocations of JSON trees, and it
/// keeps the statistics `agui-replay bench` reads to measure memory.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    agui_replay::cli::main()
}
