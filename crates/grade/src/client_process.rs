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

/// How long the client's stdout and stderr are read after the client exited with them
/// still open (something it started holds them: a helper left in the background). Its
/// report is its last line, printed before it exited; what comes later is not its.
/// Wall time, as the timeout is: a pipe only the client held closes when it exits, so a
/// client that leaves nothing behind never waits on it.
const PIPES_AFTER_EXIT: Duration = Duration::from_secs(1);

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
/// (time moves only while the client waits on the server, and with a `pace` no faster
/// than that many virtual milliseconds per wall millisecond), calls held until their
/// scenario time, the quiescence marker on.
pub fn grading_config(plan: &GradingPlan, pace: Option<f64>) -> Config {
    Config::from_scenario(plan.scenario.clone())
        .with_control(true)
        .with_auto_time(NO_GRACE)
        .with_pace(pace)
        .with_call_gates(true)
        .with_quiet_marker(true)
}

/// Runs `command` against a fresh server for `plan`. `Err` is bad input to grade itself
/// (the command cannot start, or the shell does not find it), said in a sentence; a client
/// that crashes or prints no report that reads is that run's outcome.
pub fn run_client(
    command: &str,
    plan: &GradingPlan,
    timeout: Duration,
    pace: Option<f64>,
) -> Result<RawRun, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))?;
    let result = runtime.block_on(async {
        let config = grading_config(plan, pace);
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
            let (status, left_behind) = {
                let pipes = async {
                    let (a, b) =
                        tokio::join!(stdout.read_to_end(&mut out), stderr.read_to_end(&mut err));
                    a.and(b)
                };
                tokio::pin!(pipes);
                // Whichever ends first: the pipes (the usual order: they close as the
                // client exits), or the client with its pipes still held by what it left
                // running, which must not turn a client that reported into a hung one.
                let exited = tokio::select! {
                    read = &mut pipes => Err(read),
                    status = child.wait() => Ok(status),
                };
                match exited {
                    Err(read) => (read.and(child.wait().await), false),
                    Ok(status) => {
                        let closed = tokio::time::timeout(PIPES_AFTER_EXIT, &mut pipes).await;
                        (status, closed.is_err())
                    }
                }
            };
            (status, out, err, left_behind)
        };
        let finished = tokio::time::timeout(timeout, read).await;
        let wall = started.elapsed();
        let ledger = running.app.with_engine(|e| e.server().ledger().clone());
        let faults = running.app.fired_faults();
        let Ok((status, out, err, left_behind)) = finished else {
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
        if left_behind && let Some(pid) = pid {
            // What it left running goes with it, as at a timeout.
            kill_group(pid);
        }
        let stderr_tail = tail(&String::from_utf8_lossy(&err), 12);
        let status = status.map_err(|e| format!("lost the client process: {e}"))?;
        let report = ClientReport::from_stdout(&String::from_utf8_lossy(&out));
        // The shell's "not found" is exit 127 before anything ran: no request reached the
        // server and nothing was printed that reads. A client that itself exits 127 after
        // it ran (a missing subcommand, a wrapper's own status) is that run's crash, not
        // bad input that ends the whole grade.
        if status.code() == Some(127) && ledger.answers.is_empty() && report.is_err() {
            return Err(format!(
                "the command was not found: `{command}` (sh: {})",
                stderr_tail.trim()
            ));
        }
        let report = report.map_err(|why| {
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
