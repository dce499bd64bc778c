//! Runs and the report: every chosen phase `--runs` times, each run on a fresh server.
//!
//! A fresh server per run keeps runs independent (no sessions, logs or heap left over
//! from the previous one) and makes the server's CPU time and RSS after the run that
//! run's own. A server that exits during a run fails the whole benchmark: a crash under
//! load is a result, not noise. Each run is printed as it ends, then the median of the
//! runs; the same figures go into the JSON report.

use std::path::Path;

use serde_json::{Value, json};

use crate::echo::EchoResult;
use crate::progress::ProgressResult;
use crate::server::ServerChild;
use crate::stats::median;
use crate::{Args, Result, attack, echo, os, progress, rss, server, soak};

/// The soak's server returns freed pages to the OS at once. By default mimalloc (the
/// `faultline` binary's allocator) keeps them a while for reuse, and under a loop that
/// allocates as fast as this one RSS then grows with the pages it holds (about 300
/// bytes per session over 20,000 sessions), which would hide a real leak's slope or
/// fake one. With the delay at 0, RSS follows what the server really holds.
const SOAK_ALLOCATOR_ENV: (&str, &str) = ("MIMALLOC_PURGE_DELAY", "0");

const PHASES: [&str; 6] = ["echo1", "echo", "progress", "rss", "soak", "attack"];

/// What one run measured, with the server's CPU time and RSS read right after it.
struct Measured<T> {
    result: T,
    server_cpu_s: f64,
    server_rss_mib: f64,
}

/// Runs `phase` against a freshly started server, then stops the server.
async fn on_fresh_server<T>(
    exe: &Path,
    phase: impl AsyncFnOnce(&ServerChild) -> Result<T>,
) -> Result<Measured<T>> {
    on_fresh_server_with(exe, &[], &[], phase).await
}

/// [`on_fresh_server`] with more `serve` flags and environment.
async fn on_fresh_server_with<T>(
    exe: &Path,
    flags: &[String],
    env: &[(&str, &str)],
    phase: impl AsyncFnOnce(&ServerChild) -> Result<T>,
) -> Result<Measured<T>> {
    let mut server = ServerChild::spawn(exe, flags, env)?;
    let result = phase(&server).await;
    let server_cpu_s = server.cpu_seconds();
    let server_rss_mib = server.rss_mib();
    let alive = server.check_alive();
    drop(server);
    alive?;
    Ok(Measured {
        result: result?,
        server_cpu_s,
        server_rss_mib,
    })
}

pub async fn run_all(args: &Args) -> Result<Value> {
    let exe = match &args.server_exe {
        Some(p) => p.clone(),
        None => server::default_exe()?,
    };
    let duration = std::time::Duration::from_secs_f64(args.duration.max(0.1));
    let runs = args.runs.max(1);
    let want = |p: &str| args.phases.iter().any(|x| x == p);
    for p in &args.phases {
        if !PHASES.contains(&p.as_str()) {
            return Err(
                format!("unknown phase {p:?} (echo1, echo, progress, rss, soak, attack)").into(),
            );
        }
    }
    let nofile = os::raise_nofile_limit(args.streams + 1_024);
    let inflight = args.inflight.max(1);
    println!(
        "faultline-loadgen: server {} | {} run(s) | {:.1} s per timed phase | client threads {} | RLIMIT_NOFILE {}",
        exe.display(),
        runs,
        duration.as_secs_f64(),
        args.client_threads.max(1),
        nofile
    );
    let mut report = serde_json::Map::new();
    report.insert(
        "config".into(),
        json!({
            "server_exe": exe.display().to_string(),
            "runs": runs,
            "duration_s": duration.as_secs_f64(),
            "sessions": args.sessions,
            "inflight": args.inflight,
            "job_sessions": args.job_sessions,
            "steps": args.steps,
            "streams": args.streams,
            "client_threads": args.client_threads.max(1),
            "rlimit_nofile": nofile,
        }),
    );

    let mut echo_phases = Vec::new();
    if want("echo1") {
        echo_phases.push(("echo1", 1));
    }
    if want("echo") {
        echo_phases.push(("echo", args.sessions.max(1)));
    }
    for (name, sessions) in echo_phases {
        let mut results = Vec::new();
        for run in 1..=runs {
            let m = on_fresh_server(&exe, async |s| {
                echo::run(s, sessions, inflight, duration).await
            })
            .await?;
            let r = EchoResult {
                server_cpu_s: m.server_cpu_s,
                server_rss_mib: m.server_rss_mib,
                ..m.result
            };
            println!(
                "  {name:<8} run {run}: {:>5} sessions x {} in flight  {:>9.0} req/s  p50 {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  errors {}  server CPU {:.2} s ({:.1} µs/req), RSS after {:.1} MiB",
                sessions,
                inflight,
                r.rps,
                r.p50_ms,
                r.p99_ms,
                r.max_ms,
                r.errors,
                r.server_cpu_s,
                r.server_cpu_s * 1e6 / r.requests.max(1) as f64,
                r.server_rss_mib,
            );
            results.push(r);
        }
        let m = EchoResult::median(&results);
        println!(
            "{name:<10} median of {runs}: {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms ({} sessions x {} in flight)",
            m.rps, m.p50_ms, m.p99_ms, sessions, inflight
        );
        report.insert(
            name.into(),
            json!({
                "sessions": sessions,
                "inflight_per_session": inflight,
                "median": m.to_json(),
                "runs": results.iter().map(EchoResult::to_json).collect::<Vec<_>>(),
            }),
        );
    }

    if want("progress") {
        let sessions = args.job_sessions.max(1);
        let mut results = Vec::new();
        for run in 1..=runs {
            let m = on_fresh_server(&exe, async |s| {
                progress::run(s, sessions, args.steps, duration).await
            })
            .await?;
            let r = ProgressResult {
                server_cpu_s: m.server_cpu_s,
                server_rss_mib: m.server_rss_mib,
                ..m.result
            };
            println!(
                "  progress run {run}: {:>5} sessions  {:>9.0} events/s  ({} events, {} jobs completed, {} short jobs)  server CPU {:.2} s, RSS after {:.1} MiB",
                sessions,
                r.events_per_s,
                r.events,
                r.jobs_completed,
                r.short_jobs,
                r.server_cpu_s,
                r.server_rss_mib,
            );
            results.push(r);
        }
        let m = median(results.iter().map(|r| r.events_per_s));
        println!(
            "progress   median of {runs}: {m:.0} notifications/progress events/s ({sessions} sessions, {} steps per job)",
            args.steps
        );
        report.insert(
            "progress".into(),
            json!({
                "sessions": sessions,
                "steps": args.steps,
                "median_events_per_s": m,
                "runs": results.iter().map(ProgressResult::to_json).collect::<Vec<_>>(),
            }),
        );
    }

    if want("rss") {
        let mut results = Vec::new();
        for run in 1..=runs {
            let r = on_fresh_server(&exe, async |s| rss::run(s, args.streams).await)
                .await?
                .result;
            println!(
                "  rss      run {run}: idle {:.1} MiB, {} sessions {:.1} MiB, +{} open GET streams {:.1} MiB (peak {:.1} MiB; {:.1} KiB/stream+session)  generator {:.1} MiB  open {:.1} s",
                r.idle_mib,
                r.streams,
                r.sessions_mib,
                r.open,
                r.streams_mib,
                r.hwm_mib,
                (r.streams_mib - r.idle_mib) * 1024.0 / r.open.max(1) as f64,
                r.generator_mib,
                r.open_s,
            );
            results.push(r);
        }
        let m = median(results.iter().map(|r| r.streams_mib));
        println!(
            "rss        median of {runs}: {m:.1} MiB server VmRSS with {} sessions each holding an open GET stream",
            args.streams
        );
        report.insert(
            "rss".into(),
            json!({
                "streams": args.streams,
                "median_mib": m,
                "runs": results.iter().map(|r| json!({
                    "idle_mib": r.idle_mib,
                    "sessions_mib": r.sessions_mib,
                    "streams_mib": r.streams_mib,
                    "peak_mib": r.hwm_mib,
                    "open_streams": r.open,
                    "generator_mib": r.generator_mib,
                    "open_s": r.open_s,
                })).collect::<Vec<_>>(),
            }),
        );
    }
    if want("soak") {
        // A small ledger window fills within the loop's first half, so the second half
        // (where the slope is fitted) is the steady state a long-lived server lives in.
        let flags = [
            "--ledger-window".to_string(),
            args.soak_ledger_window.to_string(),
        ];
        let r = on_fresh_server_with(&exe, &flags, &[SOAK_ALLOCATOR_ENV], async |s| {
            soak::run(s, args.soak_sessions).await
        })
        .await?
        .result;
        let steady = &r.samples[r.samples.len() / 2..];
        let mib = |b: u64| b as f64 / 1048576.0;
        let steady_min = steady.iter().map(|s| s.1).min().map_or(0.0, mib);
        let steady_max = steady.iter().map(|s| s.1).max().map_or(0.0, mib);
        // The range beside the slope: allocators grow in steps (an arena, a doubled
        // buffer), and one step near the middle of the second half tilts a fitted line
        // although nothing grows after it; a leak shows as a wide range *and* a slope.
        println!(
            "soak       {} sessions created, their GET streams opened and cut, deleted in {:.1} s (serve --ledger-window {}, {}={}): RSS {:.1} -> {:.1} MiB, second half {:.1}..{:.1} MiB, slope {:.1} bytes/session",
            r.sessions,
            r.seconds,
            args.soak_ledger_window,
            SOAK_ALLOCATOR_ENV.0,
            SOAK_ALLOCATOR_ENV.1,
            r.rss_start_mib,
            r.rss_end_mib,
            steady_min,
            steady_max,
            r.bytes_per_session,
        );
        report.insert(
            "soak".into(),
            json!({
                "sessions": r.sessions,
                "ledger_window": args.soak_ledger_window,
                "server_env": {SOAK_ALLOCATOR_ENV.0: SOAK_ALLOCATOR_ENV.1},
                "bytes_per_session": r.bytes_per_session,
                "rss_start_mib": r.rss_start_mib,
                "rss_end_mib": r.rss_end_mib,
                "seconds": r.seconds,
                "samples": r.samples,
            }),
        );
    }
    if want("attack") {
        let seconds = std::time::Duration::from_secs_f64(args.attack_seconds);
        let r = on_fresh_server_with(&exe, &[], &[SOAK_ALLOCATOR_ENV], async |s| {
            attack::run(s, seconds, &args.attacks).await
        })
        .await?
        .result;
        let sent: Vec<String> = r.sent.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!(
            "attack     {:.1} s of issue 29's attacks ({}) while 8 sessions call echo: echo p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms, {} requests, {} errors; RSS {:.1} -> peak {:.1} -> {:.1} MiB, second half's peak {:+.1} MiB on the first's ({}={})",
            r.seconds,
            sent.join(", "),
            r.echo.p50_ms,
            r.echo.p99_ms,
            r.echo.max_ms,
            r.echo.requests,
            r.echo.errors,
            r.rss_start_mib(),
            r.rss_peak_mib(),
            r.rss_end_mib(),
            r.second_half_growth_mib(),
            SOAK_ALLOCATOR_ENV.0,
            SOAK_ALLOCATOR_ENV.1,
        );
        println!(
            "attack     issue 29's bars: echo median under 50 ms: {}; RSS growth under 256 MiB: {}",
            if r.echo.p50_ms < 50.0 { "yes" } else { "NO" },
            if r.rss_peak_mib() - r.rss_start_mib() < 256.0 {
                "yes"
            } else {
                "NO"
            },
        );
        report.insert("attack".into(), r.to_json());
    }
    Ok(Value::Object(report))
}
