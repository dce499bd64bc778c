//! One graded run: a fresh server for the scenario, the client as a subprocess with the
//! URL as its last argument, its report, and the server's ledger.

use std::process::Stdio;
use std::time::{Duration, Instant};

use faultline_model::Ledger;
use faultline_scenario::FiredFault;
use faultline_server::{Config, NO_GRACE};
use tokio::process::Command;

use crate::ClientReport;
use crate::client_context::GradingPlan;
use faultline_verdicts::MissingReport;

/// What one run produced.
#[derive(Debug)]
pub struct RawRun {
    /// The client's report, or why it gave none that reads (it hung, crashed, or printed
    /// no report): each a verdict of its own scenario, never the end of the grade.
    pub report: Result<ClientReport, MissingReport>,
    pub ledger: Ledger,
    /// The scenario's faults as they fired, in order.
    pub faults: Vec<FiredFault>,
    /// The last lines the client wrote on stderr.
    pub stderr_tail: String,
    pub wall: Duration,
}

/// The server the client meets: the scenario's knobs and faults on the harness's clock
/// (time moves only while the client waits on the server), calls held until their
/// scenario time, the quiescence marker on.
pub fn grading_config(plan: &GradingPlan) -> Config {
    Config::from_scenario(plan.scenario.clone())
        .with_control(true)
        .with_auto_time(NO_GRACE)
        .with_call_gates(true)
        .with_quiet_marker(true)
}

/// Runs `command` against a fresh server for `plan`. `Err` is bad input to grade itself
/// (the command cannot start, or the shell does not find it), said in a sentence; a client
/// that crashes or prints no report that reads is that run's outcome.
pub fn run_client(command: &str, plan: &GradingPlan, timeout: Duration) -> Result<RawRun, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))?;
    let result = runtime.block_on(async {
        let config = grading_config(plan);
        let running = faultline_server::start(config, "127.0.0.1:0".parse().expect("an address"))
            .await
            .map_err(|e| format!("cannot start the server on 127.0.0.1:0: {e}"))?;
        let context = serde_json::to_string(&plan.context).expect("a context serializes");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("{command} \"$@\""))
            .arg("faultline")
            .arg(running.url())
            .env("FAULTLINE_SCENARIO", &plan.scenario.name)
            .env("FAULTLINE_CONTEXT", context)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start `sh -c {command:?}`: {e}"))?;
        let pid = child.id();
        let started = Instant::now();
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let read = async {
            use tokio::io::AsyncReadExt;
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let (a, b) = tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
            let status = child.wait().await;
            (a.and(b).and(status), out, err)
        };
        let finished = tokio::time::timeout(timeout, read).await;
        let wall = started.elapsed();
        let ledger = running.app.with_engine(|e| e.server().ledger().clone());
        let faults = running.app.fired_faults();
        let Ok((status, out, err)) = finished else {
            if let Some(pid) = pid {
                kill_group(pid);
            }
            return Ok(RawRun {
                report: Err(MissingReport::Hung {
                    waited_ms: Some(timeout.as_millis() as u64),
                }),
                ledger,
                faults,
                stderr_tail: String::new(),
                wall,
            });
        };
        let stderr_tail = tail(&String::from_utf8_lossy(&err), 12);
        let status = status.map_err(|e| format!("lost the client process: {e}"))?;
        if status.code() == Some(127) {
            return Err(format!(
                "the command was not found: `{command}` (sh: {})",
                stderr_tail.trim()
            ));
        }
        let report = ClientReport::from_stdout(&String::from_utf8_lossy(&out)).map_err(|why| {
            use std::os::unix::process::ExitStatusExt;
            MissingReport::ended(status.code(), status.signal(), why, stderr_tail.clone())
        });
        Ok(RawRun {
            report,
            ledger,
            faults,
            stderr_tail,
            wall,
        })
    });
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

/// Kills the client and everything it started (it leads its own process group).
///
/// Straight through `kill(2)` with a negative pid: procps' `kill -KILL -PID` reads `-PID`
/// as options and signals another group (process group 2 here), which took down whatever
/// shell ran `faultline grade`.
fn kill_group(pid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes two integers and touches no memory of ours; a group that is
    // already gone gives ESRCH, which is fine.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
