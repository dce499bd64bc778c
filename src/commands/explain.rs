//! `faultline explain SCENARIO`: the run told in plain words.
//!
//! The narrative is generated from the run (knobs, client record, ledger, verdicts), never
//! written per scenario, so it stays true for any scenario file. The other client model is
//! run too, on the same seed, to say in one line what the guards change.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use faultline_sim::ClientModel;

use super::run::ClientArg;

#[derive(Args)]
pub struct ExplainArgs {
    /// The scenario: a RON file, e.g. scenarios/behavior_a.ron, or the name of a bundled
    /// one, e.g. behavior_a (see `faultline scenarios`); a file that exists wins.
    pub scenario: PathBuf,
    /// The modelled client (default: the scenario's `client.model`).
    #[arg(long, value_enum)]
    pub client: Option<ClientArg>,
    /// Override the scenario's seed.
    #[arg(long)]
    pub seed: Option<u64>,
}

pub fn explain(args: ExplainArgs) -> ExitCode {
    let (scenario, seed, client) = match super::run::load(&args.scenario, args.seed, args.client) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let outcome = faultline_sim::run(&scenario, seed, client);
    let other = match client {
        ClientModel::Naive => ClientModel::Guarded,
        ClientModel::Guarded => ClientModel::Naive,
    };
    let contrast = faultline_sim::run_untraced(&scenario, seed, other);
    print!(
        "{}",
        faultline_teach::explain(&scenario, &outcome, Some(&contrast))
    );
    ExitCode::SUCCESS
}
