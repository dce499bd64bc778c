//! `faultline`: reproduce MCP session-resumption incidents deterministically.
//!
//! Subcommands:
//! - `run SCENARIO`: simulate a scenario and print the timeline and the oracle's verdicts;
//! - `bench`: measure simulation speed (events per second, wall time of the cascade).
//! - `explore`: swarm testing over the knob space, shrunk findings, the failure-mode map.
//! - `serve`: the same model over real HTTP, playing a scenario's faults live.
//! - `render TRACE -o OUT.svg|OUT.html`: a trace as a sequence diagram.
//! - `explain SCENARIO`: a run told in plain words, with the guard that would catch it.
//! - `grade --command CMD`: grade a real MCP client, in any language, on every scenario.
//! - `profiles`: the SDK server profiles `serve --profile` takes.
//! - `scenarios`: the scenarios bundled into the binary (a name works wherever a scenario
//!   file does).
//!
//! Exit codes (a contract for CI): 0 the scenario's `expect` holds, 1 it does not,
//! 2 bad input (unreadable or malformed scenario, bad arguments).

mod allocator;
mod bundled;
mod commands;

/// The binary's allocator (see [`allocator`]).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "faultline",
    version,
    about = "Deterministic fault injection for MCP Streamable HTTP session resumption",
    after_help = "Exit codes: 0 the scenario's expectation holds (run), nothing was lost silently (grade, explore); \
1 it does not, or something was lost, hung or looped (grade: or a client crashed, printed no report that reads, \
tested nothing or spoke the other era); 2 bad input (a scenario file's error with its line and column, a bad flag, \
a --command the shell does not find).\n\
Docs: docs/README.md in the repository."
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
    /// Swarm-test the knob space, shrink each distinct failure, draw the failure-mode map.
    Explore(commands::explore::ExploreArgs),
    /// Serve the model over real HTTP (MCP endpoint /mcp), playing a scenario's faults.
    Serve(commands::serve::ServeArgs),
    /// Draw a trace as a sequence diagram (SVG, or a self-contained HTML page).
    Render(commands::render::RenderArgs),
    /// Explain a run in plain words: the trap, the belief, the truth, the loss, the guard.
    Explain(commands::explain::ExplainArgs),
    /// Grade any MCP client (a shell command, any language) against the scenarios.
    Grade(commands::grade::GradeArgs),
    /// List the scenarios bundled into the binary, by name, with their summaries.
    Scenarios(commands::scenarios::ScenariosArgs),
    /// List the SDK server profiles (`serve --profile NAME`, a scenario's `server: (profile: "NAME")`).
    Profiles,
    /// Probe any MCP server over raw HTTP: its behaviour beside the SDK profiles', the
    /// `server:` block it implies, and (--explore N) the client habits that lose data on it.
    Probe(commands::probe::ProbeArgs),
}

/// This machine's cores: the default number of workers of `explore` and `grade`.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// How a user runs this binary again, for the "reproduce with" lines: `cargo run --release
/// --` from the root of a clone (the directory holds faultline's own `Cargo.toml`),
/// `faultline` anywhere else (an installed binary).
pub(crate) fn invocation() -> &'static str {
    let in_clone = std::fs::read_to_string("Cargo.toml")
        .is_ok_and(|manifest| manifest.contains("name = \"faultline\""));
    if in_clone {
        "cargo run --release --"
    } else {
        "faultline"
    }
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
        Command::Explore(args) => commands::explore::explore(args),
        Command::Serve(args) => commands::serve::serve(args),
        Command::Render(args) => commands::render::render(args),
        Command::Explain(args) => commands::explain::explain(args),
        Command::Grade(args) => commands::grade::grade(args),
        Command::Scenarios(args) => commands::scenarios::scenarios(args),
        Command::Profiles => commands::profiles::profiles(),
        Command::Probe(args) => commands::probe::probe(args),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every argument of every subcommand (nested ones too) has a line of help.
    #[test]
    fn every_flag_of_every_subcommand_is_documented() {
        fn walk(cmd: &clap::Command, path: &str, undocumented: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg
                    .get_help()
                    .is_none_or(|h| h.to_string().trim().is_empty())
                {
                    undocumented.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() {
                    undocumented.push(format!("{path} {} (no about)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), undocumented);
            }
        }
        let mut undocumented = Vec::new();
        walk(&Cli::command(), "faultline", &mut undocumented);
        assert!(
            undocumented.is_empty(),
            "flags without help: {undocumented:?}"
        );
    }
}
