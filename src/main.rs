//! `faultline`: reproduce MCP session-resumption incidents deterministically.
//!
//! Subcommands:
//! - `run SCENARIO`: simulate a scenario and print the timeline and the oracle's verdicts;
//! - `bench`: measure simulation speed (events per second, wall time of the cascade).
//! - `serve`: the same model over real HTTP, playing a scenario's faults live.
//!
//! Exit codes (a contract for CI): 0 the scenario's `expect` holds, 1 it does not,
//! 2 bad input (unreadable or malformed scenario, bad arguments).

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "faultline",
    version,
    about = "Deterministic fault injection for MCP Streamable HTTP session resumption"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scenario and judge what the client lost.
    Run(commands::run::RunArgs),
    /// Measure simulation speed on the bundled incidents.
    Bench(commands::bench::BenchArgs),
    /// Serve the model over real HTTP (MCP endpoint /mcp), playing a scenario's faults.
    Serve(commands::serve::ServeArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => commands::run::run(args),
        Command::Bench(args) => commands::bench::bench(args),
        Command::Serve(args) => commands::serve::serve(args),
    }
}
