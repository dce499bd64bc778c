//! `faultline render TRACE -o OUT.svg|OUT.html`: a run's trace as a sequence diagram.
//!
//! The trace file alone is enough to draw the picture and mark harm as it happened; its
//! header (first line) names the run: scenario, scenario file, seed and client model. With
//! `--scenario` the run is simulated again (runs are deterministic) to pin the oracle's
//! verdicts on it, with the header's seed and client model unless `--seed`/`--client` say
//! otherwise; the re-run must produce the very entries of the trace file, or the verdicts
//! would belong to another run and the command refuses. Without `--scenario`, the scenario
//! the header names (its file, else the bundled scenario of that name) is re-run the same
//! way, and its verdicts are pinned when the re-run matches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use faultline_sim::{ClientModel, TraceHeader, Verdict};
use faultline_teach::{Diagram, Format, MAX_ROWS, build, pin_verdicts, read_trace};

use super::run::ClientArg;

#[derive(Args)]
pub struct RenderArgs {
    /// A trace file written by `faultline run SCENARIO --trace FILE` (JSON lines).
    pub trace: PathBuf,
    /// Where to write the diagram; `.svg` or `.html` (one self-contained page).
    #[arg(short, long)]
    pub output: PathBuf,
    /// The scenario the trace came from (a file, or a bundled name such as behavior_a):
    /// re-run it with the seed and client the trace's header names, to pin the verdicts.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// With --scenario: the client model of the run (default: the trace header's, else the
    /// scenario's).
    #[arg(long, value_enum, requires = "scenario")]
    pub client: Option<ClientArg>,
    /// With --scenario: the seed of the run (default: the trace header's, else the
    /// scenario's).
    #[arg(long, requires = "scenario")]
    pub seed: Option<u64>,
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn run_title(scenario: &str, seed: u64, client: ClientModel) -> String {
    format!("{scenario} (seed {seed}, {} client)", client.name())
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
    let trace = match read_trace(&text) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: {e}", args.trace.display())),
    };
    let header = trace.header.as_ref();
    let mut run = header.map(|h| run_title(&h.scenario, h.seed, h.client));
    let mut found = None;
    let verdicts = match &args.scenario {
        // The header names the scenario file: when it is still there (or bundled) and
        // re-running it reproduces these very entries, the verdicts are this run's.
        None => header
            .and_then(|h| verdicts_from_header(h, &trace.entries))
            .map(|(title, verdicts, path)| {
                run = Some(title);
                found = Some(path);
                verdicts
            }),
        Some(path) => match verdicts_of(&args, path, header, &trace.entries) {
            Ok((title, verdicts)) => {
                run = Some(title);
                Some(verdicts)
            }
            Err(code) => return code,
        },
    };
    let title = match &run {
        Some(run) => format!("faultline: {run}"),
        None => format!("faultline trace {}", args.trace.display()),
    };
    let mut diagram = build(&trace.entries, &title);
    if let Some(verdicts) = &verdicts {
        pin_verdicts(&mut diagram, verdicts);
    }
    let contents = describe(
        &diagram,
        run.as_deref(),
        header,
        verdicts.is_some(),
        found.as_deref(),
    );
    let out = faultline_teach::render(diagram, format);
    if let Err(e) = std::fs::write(&args.output, out) {
        return fail(format!("cannot write {}: {e}", args.output.display()));
    }
    println!(
        "wrote {} ({}){contents}",
        args.output.display(),
        match format {
            Format::Svg => "SVG",
            Format::Html => "self-contained HTML page",
        }
    );
    ExitCode::SUCCESS
}

/// The verdicts of the run the header names, when its scenario can be found (the file it
/// names, else the bundled scenario of that name) and re-running it with the header's seed
/// and client gives exactly `entries`; the title, the verdicts and where the scenario was.
fn verdicts_from_header(
    header: &TraceHeader,
    entries: &[faultline_sim::TraceEntry],
) -> Option<(String, Vec<Verdict>, String)> {
    let candidates = header.scenario_path.iter().chain([&header.scenario]);
    for arg in candidates {
        let Ok(scenario) = crate::bundled::load(std::path::Path::new(arg)) else {
            continue;
        };
        if scenario.name != header.scenario {
            continue;
        }
        let outcome = faultline_sim::run(&scenario, header.seed, header.client);
        if outcome.result.trace == entries {
            let title = run_title(&scenario.name, header.seed, header.client);
            return Some((title, outcome.verdicts, arg.clone()));
        }
    }
    None
}

/// Re-runs the scenario with the trace's seed and client model and returns the run's title
/// and verdicts; refuses (exit 2) when the re-run is not the run of the trace.
fn verdicts_of(
    args: &RenderArgs,
    path: &std::path::Path,
    header: Option<&TraceHeader>,
    entries: &[faultline_sim::TraceEntry],
) -> Result<(String, Vec<Verdict>), ExitCode> {
    let seed = args.seed.or(header.map(|h| h.seed));
    let (scenario, seed, client) = super::run::load(path, seed, args.client)?;
    let client = match (args.client, header) {
        (None, Some(h)) => h.client,
        _ => client,
    };
    if let Some(h) = header
        && h.scenario != scenario.name
    {
        return Err(fail(format!(
            "{} is a trace of scenario {:?} (its header says so), not of {} ({:?})",
            args.trace.display(),
            h.scenario,
            path.display(),
            scenario.name
        )));
    }
    let outcome = faultline_sim::run(&scenario, seed, client);
    if outcome.result.trace != entries {
        return Err(fail(format!(
            "{} is not the trace of {} with seed {seed} and client {}: the verdicts would describe another run (check --seed and --client, or drop --scenario)",
            args.trace.display(),
            path.display(),
            client.name()
        )));
    }
    Ok((run_title(&scenario.name, seed, client), outcome.verdicts))
}

/// What the diagram shows, for the line printed after writing it.
fn describe(
    diagram: &Diagram,
    run: Option<&str>,
    header: Option<&TraceHeader>,
    pinned: bool,
    found: Option<&str>,
) -> String {
    let harmful = diagram.rows.iter().filter(|r| r.harm.is_some()).count();
    let mut out = format!(
        "\n  run: {}",
        run.unwrap_or("unknown (the trace has no header: it predates them)")
    );
    out.push_str(&format!(
        "\n  diagram: {} trace entries in {} rows{}, {harmful} marked as harm",
        diagram.entries,
        diagram.rows.len(),
        if diagram.rows.len() > MAX_ROWS {
            format!(" (cut to about {MAX_ROWS} around the harm)")
        } else {
            String::new()
        }
    ));
    if pinned {
        let kinds: Vec<&str> = diagram.verdicts.iter().map(|v| v.kind.as_str()).collect();
        out.push_str(&format!("\n  verdicts pinned: {}", kinds.join(", ")));
        if let Some(found) = found {
            out.push_str(&format!(
                "\n  (re-ran {found}, as the trace's header names it; --scenario FILE chooses another)"
            ));
        }
    } else {
        let hint = match header.and_then(|h| h.scenario_path.as_deref()) {
            Some(path) => format!(
                "{path}, which the trace's header names, is gone or gives another run: add --scenario FILE to pin them"
            ),
            None => "add --scenario FILE to pin them".to_string(),
        };
        out.push_str(&format!("\n  verdicts: not pinned ({hint})"));
    }
    out
}
