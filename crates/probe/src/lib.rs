//! `faultline probe URL`: a black-box probe of any MCP Streamable HTTP server (2025-11-25,
//! with sessions), in any language, over raw HTTP. It never needs faultline's control
//! API, so it runs against a server author's own server as well as against the SDKs'.
//!
//! Why: a client author's first question is "what will my server do to my client?", and
//! the answer lives in edges no spec section pins down (what an unknown cursor gets, what
//! a finished call's cursor replays, what a dead session's requests hear). The probe
//! walks those edges in one fixed sequence (`walk`), reduces each answer to a normalised
//! row (`normalise`, `row`), sets the rows beside the real SDK servers' own (`closest`),
//! and writes the knobs that would make `faultline serve` answer alike (`inferred_knobs`)
//! so that the explorer can tell which client habits lose data against that server.
//!
//! The same probe is the differential check of the SDK profiles (`tests/profiles/run.sh`
//! runs it against each real SDK server and against `faultline serve --profile`).

mod closest;
mod connection;
mod inferred_knobs;
mod normalise;
mod row;
mod sse_frame;
mod walk;

use serde::Serialize;

pub use closest::Closeness;
pub use inferred_knobs::{EXPLORE_CAVEAT, InferredKnobs};
pub use row::{Row, table};
pub use walk::Untested;

/// What one probe found.
#[derive(Debug, Clone, Serialize)]
pub struct Probed {
    pub url: String,
    pub rows: Vec<Row>,
    /// Steps the server gave the probe no way to take, or no answer to.
    pub untested: Vec<Untested>,
    /// Steps whose row stands but reveals no knob, and why.
    pub unrevealing: Vec<Untested>,
    /// Every SDK profile's real server beside this one, closest first.
    pub profiles: Vec<Closeness>,
    pub inferred: InferredKnobs,
}

/// Probes the server at `url` (4 to 20 seconds against a local server: a stream a server
/// holds open is read until it has been quiet a while).
pub fn probe(url: &str) -> Result<Probed, String> {
    let endpoint = connection::Endpoint::parse(url)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the probe's runtime: {e}"))?;
    let walked = runtime.block_on(walk::walk(endpoint))?;
    let profiles = closest::rank(&walked.rows);
    let inferred = inferred_knobs::infer(&walked.rows, &profiles, &walked.unrevealing);
    Ok(Probed {
        url: url.to_string(),
        rows: walked.rows,
        untested: walked.untested,
        unrevealing: walked.unrevealing,
        profiles,
        inferred,
    })
}

impl Probed {
    /// The closest profile's name.
    pub fn closest(&self) -> &'static str {
        self.profiles[0].profile
    }

    /// The report for people: the server's rows, what went untested, the profiles ranked,
    /// each step beside each profile, and the inferred `server:` block.
    pub fn text(&self) -> String {
        let mut out = vec![
            format!("probe of {}", self.url),
            String::new(),
            table(&self.rows),
        ];
        if !self.untested.is_empty() {
            out.push(String::new());
            for u in &self.untested {
                out.push(format!("untested: {}: {}", u.step, u.reason));
            }
        }
        if !self.unrevealing.is_empty() {
            out.push(String::new());
            for u in &self.unrevealing {
                out.push(format!("reveals no knob: {}: {}", u.step, u.reason));
            }
        }
        out.push(String::new());
        out.push("beside the real SDK servers (steps alike / steps compared, cells alike):".into());
        for c in &self.profiles {
            out.push(format!(
                "  {:17} {:>2}/{:<2} steps  {:>3}/{:<3} cells",
                c.profile, c.steps_matched, c.steps_compared, c.cells_matched, c.cells_compared
            ));
        }
        out.push(format!("closest: {}", self.closest()));
        out.push(String::new());
        out.push(self.beside());
        out.push(String::new());
        out.push(self.inferred.server_block());
        out.join("\n")
    }

    /// One line per step: `=` where a profile's real server answers alike, else the cells
    /// that differ.
    fn beside(&self) -> String {
        let mark = |c: &Closeness, step: &str| match c.differences.iter().find(|(s, _)| s == step) {
            None => "(not recorded)".to_string(),
            Some((_, cells)) if cells.is_empty() => "=".to_string(),
            Some((_, cells)) => cells
                .iter()
                .map(|(column, _, _)| *column)
                .collect::<Vec<_>>()
                .join(","),
        };
        let mut columns: Vec<Vec<String>> = vec![
            std::iter::once("step".to_string())
                .chain(self.rows.iter().map(|r| r.step.clone()))
                .collect(),
        ];
        for c in &self.profiles {
            columns.push(
                std::iter::once(c.profile.to_string())
                    .chain(self.rows.iter().map(|r| mark(c, &r.step)))
                    .collect(),
            );
        }
        let widths: Vec<usize> = columns
            .iter()
            .map(|col| col.iter().map(String::len).max().unwrap_or(0))
            .collect();
        (0..=self.rows.len())
            .map(|i| {
                columns
                    .iter()
                    .zip(&widths)
                    .map(|(col, w)| format!("{:w$}", col[i]))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
