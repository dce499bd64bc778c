//! `faultline run SCENARIO`: one run, reported for people or machines. Simulated by
//! default; with `--live` the same modelled client talks to the real server over real
//! HTTP on loopback, and the report (ledger digest included) is the same.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use faultline_scenario::SdkClient;
use faultline_sim::{ClientModel, Scenario, check_expectation, json_report, text_report};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ClientArg {
    Naive,
    Guarded,
}

impl From<ClientArg> for ClientModel {
    fn from(c: ClientArg) -> Self {
        match c {
            ClientArg::Naive => ClientModel::Naive,
            ClientArg::Guarded => ClientModel::Guarded,
        }
    }
}

#[derive(Args)]
pub struct RunArgs {
    /// The scenario: a RON file, e.g. scenarios/behavior_a.ron, or the name of a bundled
    /// one, e.g. behavior_a (see `faultline scenarios`); a file that exists wins.
    pub scenario: PathBuf,
    /// Override the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The modelled client (default: the scenario's `client.model`).
    #[arg(long, value_enum)]
    pub client: Option<ClientArg>,
    /// `text`: the timeline and verdicts for people; `json`: one object for machines.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Write the full trace as JSON lines to this file; its first line is a header naming
    /// the scenario (name and file), the seed and the client model.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Run the modelled client over real HTTP against the live server (loopback sockets,
    /// the axum front end) instead of in simulation; the ledger is byte-identical.
    #[arg(long)]
    pub live: bool,
    /// Give the naive client an SDK client's habits (`ts-1`, `python-2`, `rmcp-3.11`; see
    /// docs/client-habits.md) in place of the scenario's `habits.like`; the scenario's
    /// other habits still apply.
    #[arg(long, value_parser = parse_sdk_client)]
    pub like: Option<SdkClient>,
}

pub(crate) fn parse_sdk_client(text: &str) -> Result<SdkClient, String> {
    SdkClient::parse(text).ok_or_else(|| {
        let names: Vec<&str> = SdkClient::ALL.iter().map(|c| c.name()).collect();
        format!("no SDK client named {text:?}; one of: {}", names.join(", "))
    })
}

/// Loads a scenario and resolves the seed and client model the command line overrides;
/// a bad file is reported here, with exit code 2.
pub fn load(
    path: &std::path::Path,
    seed: Option<u64>,
    client: Option<ClientArg>,
) -> Result<(Scenario, u64, ClientModel), ExitCode> {
    let scenario = crate::bundled::load(path).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    let seed = seed.unwrap_or(scenario.seed);
    let client = client.map_or(scenario.client.model, ClientModel::from);
    Ok((scenario, seed, client))
}

pub fn run(args: RunArgs) -> ExitCode {
    let (mut scenario, seed, client) = match load(&args.scenario, args.seed, args.client) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if let Some(sdk) = args.like {
        if client == ClientModel::Guarded {
            eprintln!(
                "error: --like gives the naive client an SDK client's habits; the guarded client is the reference and takes none"
            );
            return ExitCode::from(2);
        }
        if let Err(e) = sdk.fits(scenario.client.era) {
            eprintln!("error: --like {}: {e}", sdk.name());
            return ExitCode::from(2);
        }
        scenario.client.habits.like = Some(sdk);
    }
    tracing::debug!(scenario = %scenario.name, seed, client = client.name(), "running");
    let outcome = if args.live {
        match faultline_live::run_live(&scenario, seed, client) {
            Ok(outcome) => outcome,
            Err(e) => {
                eprintln!(
                    "error: the live run broke: {e}\nreproduce with: {} run {} --seed {seed} --client {}{} --live",
                    crate::invocation(),
                    args.scenario.display(),
                    client.name(),
                    args.like
                        .map_or(String::new(), |sdk| format!(" --like {}", sdk.name()))
                );
                return ExitCode::from(1);
            }
        }
    } else {
        faultline_sim::run(&scenario, seed, client)
    };
    let check = check_expectation(&scenario, &outcome);
    if let Some(path) = &args.trace
        && let Err(e) = std::fs::write(
            path,
            outcome.trace_file(Some(&args.scenario.display().to_string())),
        )
    {
        eprintln!("error: cannot write the trace to {}: {e}", path.display());
        return ExitCode::from(2);
    }
    let reproduce = format!(
        "{} run {} --seed {seed} --client {}{}{}",
        crate::invocation(),
        args.scenario.display(),
        client.name(),
        args.like
            .map_or(String::new(), |sdk| format!(" --like {}", sdk.name())),
        if args.live { " --live" } else { "" }
    );
    match args.format {
        Format::Text => print!(
            "{}",
            text_report(&outcome, &scenario.summary, &check, &reproduce)
        ),
        Format::Json => {
            let report = json_report(&outcome, &check);
            println!(
                "{}",
                serde_json::to_string_pretty(&report).expect("report serializes")
            );
        }
    }
    if check.holds() {
        ExitCode::SUCCESS
    } else {
        // The text report already ends with the command; JSON has no place for it.
        match args.format {
            Format::Text => eprintln!("expectation failed (exit 1)"),
            Format::Json => eprintln!("expectation failed; reproduce with: {reproduce}"),
        }
        ExitCode::from(1)
    }
}
