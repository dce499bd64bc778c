//! `faultline explore`: swarm testing over the knob space, shrinking each distinct failure
//! to a minimal scenario, and the failure-mode map. `faultline explore merge` combines the
//! JSON outputs of shards (`--shard k/n` on n machines) into one report and one map.
//!
//! Files written to `--out` contain no timings, so the same seed range gives the same bytes
//! with any `--jobs` and any sharding; seeds per second go to the terminal only.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use clap::{Args, Subcommand};
use faultline_sim::explore::{
    Aggregate, explore_seed, finding_name, shrunk_era_scenario_text, witnesses,
};
use faultline_sim::swarm_era::SwarmEra;
use faultline_sim::{ClientModel, failure_map};

use super::run::{ClientArg, Format};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ExploreArgs {
    #[command(subcommand)]
    pub action: Option<ExploreAction>,
    /// Seeds to run: `N` (0..N) or `A..B`.
    #[arg(long, default_value = "10000")]
    pub seeds: String,
    /// The modelled client every seed runs against.
    #[arg(long, value_enum, default_value = "naive")]
    pub client: ClientArg,
    /// Worker threads on this machine (default: its cores; the files written are the
    /// same bytes with any number).
    #[arg(long, default_value_t = crate::cores())]
    pub jobs: usize,
    /// Run only shard `k` of `n` (0-based `k`): the seeds with `seed % n == k`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Where findings, the map and the JSON result go (a shard's files carry the shard in
    /// their names, so shards may share it).
    #[arg(
        long,
        visible_alias = "output",
        short = 'o',
        default_value = "findings"
    )]
    pub out: PathBuf,
    /// `text`: a summary for people; `json`: the aggregate, with timings, on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Pin a knob for every seed, e.g. `--knob id_scheme=PerStream`, `--knob event_log_ttl=30s`.
    #[arg(long = "knob", value_name = "NAME=VALUE")]
    pub knobs: Vec<String>,
    /// Also generate servers no client can guard against: a monotonic-id advertisement
    /// false of their numbering, a fleet whose notifications reach one replica only,
    /// (`--era modern`) a task store that runs an interrupted task again after a restart,
    /// and (`--era migration`) a 2025-only server whose answer to a 2026-07-28 probe
    /// carries a 2026-07-28 error code.
    #[arg(long)]
    pub dishonest_servers: bool,
    /// Do not shrink findings (shards never shrink: `merge` does).
    #[arg(long)]
    pub no_shrink: bool,
    /// Which protocol era the seeds draw: `legacy` (2025 sessions), `modern` (the
    /// 2026-07-28 stateless transport), `migration` (servers and clients of either era or
    /// both, era probes, deploys into another era) or `mixed` (half the seeds 2025, a
    /// quarter each of the others).
    #[arg(long, default_value = "legacy", value_parser = parse_era)]
    pub era: SwarmEra,
}

fn parse_era(text: &str) -> Result<SwarmEra, String> {
    SwarmEra::parse(text)
        .ok_or_else(|| format!("{text:?}: expected legacy, modern, migration or mixed"))
}

#[derive(Subcommand)]
pub enum ExploreAction {
    /// Combine the JSON results of shards into one report, map and set of findings.
    Merge(MergeArgs),
}

#[derive(Args)]
pub struct MergeArgs {
    /// `explore-*.json` files written by shards.
    pub inputs: Vec<PathBuf>,
    /// Where the merged findings, map and JSON result go.
    #[arg(
        long,
        visible_alias = "output",
        short = 'o',
        default_value = "findings"
    )]
    pub out: PathBuf,
    /// `text`: a summary for people; `json`: the merged aggregate on stdout.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Do not shrink the merged findings.
    #[arg(long)]
    pub no_shrink: bool,
}

fn parse_seeds(spec: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--seeds {spec:?}: write a count (100000) or a range (0..1000000)");
    match spec.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (
                a.trim().parse().map_err(|_| bad())?,
                b.trim().parse().map_err(|_| bad())?,
            );
            if a >= b {
                return Err(format!("--seeds {spec:?}: the range is empty"));
            }
            Ok((a, b))
        }
        None => match spec.trim().parse().map_err(|_| bad())? {
            0 => Err(format!(
                "--seeds {spec:?}: zero seeds would explore nothing; give a count of at least 1 or a range A..B"
            )),
            n => Ok((0, n)),
        },
    }
}

fn parse_shard(spec: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--shard {spec:?}: write k/n with 0 <= k < n, e.g. 3/16");
    let (k, n) = spec.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

fn parse_pins(knobs: &[String]) -> Result<Vec<(String, String)>, String> {
    knobs
        .iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("--knob {kv:?}: write NAME=VALUE"))
        })
        .collect()
}

/// Creates `out` and checks that a file can be written there, before any seed runs: a
/// typo in `--out` must not cost the whole exploration.
fn check_writable(out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("--out {}: cannot create it: {e}", out.display()))?;
    let probe = out.join(".faultline-write-check");
    std::fs::write(&probe, b"")
        .map_err(|e| format!("--out {}: cannot write there: {e}", out.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

pub fn explore(args: ExploreArgs) -> ExitCode {
    if let Some(ExploreAction::Merge(m)) = args.action {
        return merge(m);
    }
    let (start, end) = match parse_seeds(&args.seeds) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let shard = match args.shard.as_deref().map(parse_shard).transpose() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let pins = match parse_pins(&args.knobs) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let client = ClientModel::from(args.client);
    // Check the pins once before spending threads on them.
    if let Err(e) =
        faultline_sim::explore::scenario_for_era(start, args.dishonest_servers, args.era, &pins)
    {
        return fail(e);
    }
    let (k, n) = shard.unwrap_or((0, 1));
    let total = (start..end).filter(|s| s % n == k).count() as u64;
    if total == 0 {
        return fail(format!(
            "--shard {k}/{n} of --seeds {}: no seed of the range falls in this shard",
            args.seeds
        ));
    }
    if let Err(e) = check_writable(&args.out) {
        return fail(e);
    }
    let jobs = args.jobs.max(1) as u64;
    let done = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    let t0 = Instant::now();
    // Seeds per second are measured over the seed loop alone: from here until the last
    // worker is done (not the progress reporter's wake-up, nor writing the results).
    let (results, elapsed): (Vec<Aggregate>, f64) = std::thread::scope(|scope| {
        let progress = scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                // Woken early when the workers finish, so a short run does not wait out
                // the report interval.
                std::thread::park_timeout(std::time::Duration::from_millis(500));
                if finished.load(Ordering::Relaxed) {
                    break;
                }
                let d = done.load(Ordering::Relaxed);
                let rate = d as f64 / t0.elapsed().as_secs_f64().max(1e-9);
                eprint!(
                    "\rexplore [{}]: {d}/{total} seeds, {rate:.0} seeds/s   ",
                    client.name()
                );
                let _ = std::io::stderr().flush();
            }
        });
        let workers: Vec<_> = (0..jobs)
            .map(|t| {
                let (pins, done) = (&pins, &done);
                scope.spawn(move || {
                    let mut agg = Aggregate::new(client, args.dishonest_servers)
                        .with_era(args.era)
                        .with_pins(pins);
                    // Seeds of this shard, dealt round-robin to threads.
                    for (i, seed) in (start..end).filter(|s| s % n == k).enumerate() {
                        if i as u64 % jobs == t {
                            explore_seed(&mut agg, seed, pins).expect("pins were checked");
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    agg
                })
            })
            .collect();
        let results = workers
            .into_iter()
            .map(|w| w.join().expect("worker"))
            .collect();
        let elapsed = t0.elapsed().as_secs_f64();
        finished.store(true, Ordering::Relaxed);
        progress.thread().unpark();
        let _ = progress.join();
        (results, elapsed)
    });
    // The last progress line, overwritten with the finished count (not left at whatever
    // the last tick saw).
    eprintln!(
        "\rexplore [{}]: {total}/{total} seeds in {elapsed:.1} s          ",
        client.name()
    );
    let mut agg = Aggregate::new(client, args.dishonest_servers)
        .with_era(args.era)
        .with_pins(&pins);
    for r in &results {
        agg.merge(r).expect("same client");
    }
    let seeds_per_s = agg.seeds_run as f64 / elapsed.max(1e-9);
    let shrink = !args.no_shrink && shard.is_none();
    // A shard's files carry the shard in their names, so shards can share one --out.
    let suffix = match shard {
        Some((k, n)) => format!("{}-shard-{k}-of-{n}", client.name()),
        None => client.name().to_string(),
    };
    finish(
        agg,
        &args.out,
        &suffix,
        args.format,
        shrink,
        &pins,
        Some((elapsed, seeds_per_s)),
    )
}

fn merge(args: MergeArgs) -> ExitCode {
    if args.inputs.is_empty() {
        return fail("explore merge needs at least one explore-*.json file".into());
    }
    let mut merged: Option<Aggregate> = None;
    for path in &args.inputs {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
        };
        let agg: Aggregate = match serde_json::from_str(&text) {
            Ok(a) => a,
            Err(e) => {
                return fail(format!(
                    "{}:{}:{}: not an explore result: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                ));
            }
        };
        match &mut merged {
            None => merged = Some(agg),
            Some(m) => {
                if let Err(e) = m.merge(&agg) {
                    return fail(format!("{}: {e}", path.display()));
                }
            }
        }
    }
    let agg = merged.expect("at least one input");
    if let Err(e) = check_writable(&args.out) {
        return fail(e);
    }
    let suffix = agg.client.name().to_string();
    // The shards' seeds ran pinned: their findings shrink with the same pins.
    let pins = agg.pins.clone();
    finish(
        agg,
        &args.out,
        &suffix,
        args.format,
        !args.no_shrink,
        &pins,
        None,
    )
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Shrinks (if asked), writes `explore-SUFFIX.json`, `map-SUFFIX.txt`, `map-SUFFIX.svg` and
/// the findings into `out`, and reports.
fn finish(
    mut agg: Aggregate,
    out: &Path,
    suffix: &str,
    format: Format,
    shrink: bool,
    pins: &[(String, String)],
    timing: Option<(f64, f64)>,
) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(out) {
        return fail(format!("cannot create {}: {e}", out.display()));
    }
    agg.findings
        .sort_by(|a, b| (a.kind, &a.signature).cmp(&(b.kind, &b.signature)));
    if shrink {
        for f in agg.findings.iter_mut() {
            let path = out.join(format!("{}.ron", finding_name(agg.client, f)));
            let shown = path.display().to_string();
            match shrunk_era_scenario_text(
                agg.client,
                f,
                agg.dishonest_servers,
                agg.era,
                pins,
                &shown,
            ) {
                Ok((shrunk, text)) => {
                    if let Err(e) = write(&path, &text) {
                        return fail(e);
                    }
                    f.shrunk_size = Some(faultline_sim::shrink::size(&shrunk));
                    f.shrunk_path = Some(path.display().to_string());
                }
                Err(e) => return fail(e),
            }
        }
    }
    let json = serde_json::to_string_pretty(&agg).expect("aggregate serializes");
    let name = agg.client.name();
    for (path, text) in [
        (out.join(format!("explore-{suffix}.json")), json.clone()),
        (
            out.join(format!("map-{suffix}.txt")),
            failure_map::text(&agg),
        ),
        (
            out.join(format!("map-{suffix}.svg")),
            failure_map::svg(&agg),
        ),
    ] {
        if let Err(e) = write(&path, &text) {
            return fail(e);
        }
    }
    match format {
        Format::Json => {
            let mut v: serde_json::Value = serde_json::from_str(&json).expect("json");
            if let Some((elapsed, rate)) = timing {
                v["elapsed_s"] = serde_json::json!(elapsed);
                v["seeds_per_s"] = serde_json::json!(rate);
            }
            println!("{}", serde_json::to_string_pretty(&v).expect("json"));
        }
        Format::Text => {
            println!("explored {} seeds with the {} client", agg.seeds_run, name);
            if let Some((elapsed, rate)) = timing {
                println!("  {elapsed:.2} s in the seed loop, {rate:.0} seeds/s");
            }
            println!("verdicts (seeds on which each appeared):");
            for (k, n) in &agg.verdicts {
                println!("  {:<22} {n}", k.name());
            }
            println!("findings ({}):", agg.findings.len());
            for f in &agg.findings {
                let sig: Vec<String> = f
                    .signature
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                println!(
                    "  {:<22} {:<60} {:>15}, seed {:<20} {}",
                    f.kind.name(),
                    sig.join(" "),
                    witnesses(f.witnesses),
                    f.first_seed,
                    match (&f.shrunk_path, f.shrunk_size) {
                        (Some(p), Some(s)) => format!("-> {p} ({} -> {s} parts)", f.original_size),
                        _ => String::new(),
                    }
                );
            }
            print!("{}", failure_map::text(&agg));
            println!("written to {}", out.display());
        }
    }
    if agg.client == ClientModel::Guarded && agg.any_loss() {
        eprintln!("the guarded client, declared safe, lost data: see the findings above");
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
