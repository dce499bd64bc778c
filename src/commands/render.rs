//! `faultline render TRACE -o OUT.svg|OUT.html`: a run's trace as a sequence diagram.
//!
//! The trace file alone is enough to draw the picture and mark harm as it happened. With
//! `--scenario` the run is simulated again (runs are deterministic) to pin the oracle's
//! verdicts on it; the re-run must produce the very bytes of the trace file, or the
//! verdicts would belong to another run and the command refuses.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use faultline_teach::{Format, diagram_of_trace, pin_verdicts, render as render_diagram};

use super::run::ClientArg;

#[derive(Args)]
pub struct RenderArgs {
    /// A trace file written by `faultline run SCENARIO --trace FILE` (JSON lines).
    pub trace: PathBuf,
    /// Where to write the diagram; `.svg` or `.html` (one self-contained page).
    #[arg(short, long)]
    pub output: PathBuf,
    /// The scenario the trace came from: re-run it to pin the verdicts on the diagram.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// With --scenario: the client model of the run (default: the scenario's).
    #[arg(long, value_enum, requires = "scenario")]
    pub client: Option<ClientArg>,
    /// With --scenario: the seed of the run (default: the scenario's).
    #[arg(long, requires = "scenario")]
    pub seed: Option<u64>,
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn render(args: RenderArgs) -> ExitCode {
    let Some(format) = Format::from_path(&args.output) else {
        return fail(format!(
            "{}: the output must end in .svg or .html",
            args.output.display()
        ));
    };
    let text = match std::fs::read_to_string(&args.trace) {
        Ok(t) => t,
        Err(e) => return fail(format!("cannot read {}: {e}", args.trace.display())),
    };
    let mut title = format!("faultline trace {}", args.trace.display());
    let verdicts = match &args.scenario {
        None => None,
        Some(path) => {
            let (scenario, seed, client) = match super::run::load(path, args.seed, args.client) {
                Ok(loaded) => loaded,
                Err(code) => return code,
            };
            let outcome = faultline_sim::run(&scenario, seed, client);
            if outcome.trace_jsonl() != text {
                return fail(format!(
                    "{} is not the trace of {} with seed {seed} and client {}: the verdicts would describe another run (check --seed and --client, or drop --scenario)",
                    args.trace.display(),
                    path.display(),
                    client.name()
                ));
            }
            title = format!(
                "faultline: {} (seed {seed}, {} client)",
                scenario.name,
                client.name()
            );
            Some(outcome.verdicts)
        }
    };
    let mut diagram = match diagram_of_trace(&text, &title) {
        Ok(d) => d,
        Err(e) => return fail(format!("{}: {e}", args.trace.display())),
    };
    if let Some(verdicts) = &verdicts {
        pin_verdicts(&mut diagram, verdicts);
    }
    let out = render_diagram(diagram, format);
    if let Err(e) = std::fs::write(&args.output, out) {
        return fail(format!("cannot write {}: {e}", args.output.display()));
    }
    ExitCode::SUCCESS
}
