//! # faultline-live
//!
//! `faultline run SCENARIO --live`: the scenario's modelled client talks to the real
//! faultline server over real HTTP (loopback sockets, the axum front end, a hyper client),
//! and the run prints the same report as the simulated one.
//!
//! It is the simulator's own loop (`faultline_sim::run_over`) with a different
//! [`Link`](faultline_sim::Link): requests go out as HTTP requests on their own
//! connections; before the client is handed an output, the link waits for its bytes to
//! arrive on the right socket and checks that they say what the engine emitted. The
//! driver owns the server's clock (it moves only when the loop says so), and it reads the
//! server engine's output sequence from an in-process journal, so the client sees
//! outputs in exactly the order the simulator hands them over. Same decisions in the same
//! order: the ledgers of a simulated and a live run are byte-identical, and a test checks
//! it for every bundled scenario and the first swarm seeds.

mod http_exchange;
mod link;

use std::fmt;

use faultline_server::Config;
use faultline_sim::{ClientModel, Policy, RunOutcome, Scenario};

pub use link::LiveLink;

/// Why a live run could not finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveError(pub String);

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LiveError {}

/// Runs `scenario` with `seed` and the `client` model over real HTTP against a fresh
/// in-process server on `127.0.0.1:0`.
pub fn run_live(
    scenario: &Scenario,
    seed: u64,
    client: ClientModel,
) -> Result<RunOutcome, LiveError> {
    let config = Config::from_scenario(scenario.clone())
        .with_seed(seed)
        // Frozen: only the driver moves time, to the instants the loop reaches.
        .with_time_scale(0.0)
        .with_journal(true);
    let link = LiveLink::start(config)?;
    let (outcome, link) = faultline_sim::run_over(
        scenario,
        seed,
        client,
        Policy::for_run(client, &scenario.client),
        link,
        true,
    );
    link.finish()?;
    Ok(outcome)
}
