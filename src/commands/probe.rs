//! `faultline probe URL`: the black-box probe of any MCP server (`faultline_probe`), its
//! behaviour beside the SDK profiles', the `server:` block it implies, and with
//! `--explore N` the explorer run on those knobs: "these client habits lose data against
//! your server".

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::explore::{ExploreArgs, explore};
use super::run::{ClientArg, Format};

#[derive(Args)]
pub struct ProbeArgs {
    /// The server's MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. It needs the tools
    /// `long_job {steps, interval_ms}` (one progress event a step) and `echo {text}` for
    /// the resumption steps; without them those steps are reported untested.
    pub url: String,
    /// Also write the whole result as JSON (rows, untested steps, profiles, inferred knobs).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write the inferred `server:` block to FILE, to paste into a scenario.
    #[arg(long, value_name = "FILE")]
    pub server_block: Option<PathBuf>,
    /// Then run the explorer for N seeds on the inferred knobs, against `--client`.
    #[arg(long, value_name = "N")]
    pub explore: Option<u64>,
    /// The modelled client `--explore` runs against.
    #[arg(long, value_enum, default_value = "naive")]
    pub client: ClientArg,
    /// Where `--explore` writes its findings.
    #[arg(long, default_value = "probe-findings")]
    pub out: PathBuf,
}

pub fn probe(args: ProbeArgs) -> ExitCode {
    let probed = match faultline_probe::probe(&args.url) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("{}", probed.text());
    let json = || serde_json::to_string_pretty(&probed).expect("the probe's result serializes");
    let files = [
        (args.json.as_ref(), &json as &dyn Fn() -> String),
        (args.server_block.as_ref(), &|| {
            probed.inferred.server_block()
        }),
    ];
    for (path, text) in files {
        let Some(path) = path else { continue };
        if let Err(e) = std::fs::write(path, text() + "\n") {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    let Some(seeds) = args.explore else {
        return ExitCode::SUCCESS;
    };
    println!();
    println!(
        "exploring {seeds} seeds on these knobs against the {} client ({}):",
        client_name(args.client),
        faultline_probe::EXPLORE_CAVEAT
    );
    explore(ExploreArgs {
        action: None,
        seeds: seeds.to_string(),
        client: args.client,
        jobs: crate::cores(),
        shard: None,
        out: args.out,
        format: Format::Text,
        knobs: probed
            .inferred
            .pins()
            .into_iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect(),
        dishonest_servers: false,
        no_shrink: false,
        era: faultline_sim::swarm_era::SwarmEra::Legacy,
    })
}

fn client_name(c: ClientArg) -> &'static str {
    match c {
        ClientArg::Naive => "naive",
        ClientArg::Guarded => "guarded",
    }
}
