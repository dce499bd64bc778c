//! The server under test: `faultline serve` as a child process.
//!
//! A child process rather than an in-process server, so that its RSS and CPU time are its
//! own and the load generator's work is not counted against it. The address comes from the
//! first stdout line, `listening on http://ADDR/mcp`, which `serve` promises to print.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Result, os};

/// The `faultline` binary next to this one (both land in the same cargo target directory).
pub fn default_exe() -> Result<PathBuf> {
    let me = std::env::current_exe()?;
    let exe = me
        .with_file_name("faultline")
        .with_extension(std::env::consts::EXE_EXTENSION);
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(format!(
            "no server binary at {} (build it with `cargo build --release -p faultline`, or pass --server-exe)",
            exe.display()
        )
        .into())
    }
}

/// `faultline serve` on `127.0.0.1:0`, fault-free; stopped (SIGTERM, then SIGKILL) on drop.
pub struct ServerChild {
    child: Child,
    pub addr: SocketAddr,
}

impl ServerChild {
    /// With `flags` after the fixed ones, and `env` set for the child.
    pub fn spawn(exe: &Path, flags: &[String], env: &[(&str, &str)]) -> Result<ServerChild> {
        let mut child = Command::new(exe)
            .args(["serve", "--addr", "127.0.0.1:0", "--seed", "1"])
            .args(flags)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", exe.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|a| a.parse::<SocketAddr>().ok());
        match addr {
            Some(addr) => Ok(ServerChild { child, addr }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("the server's first line was {line:?}, not `listening on …`").into())
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// An error if the server exited during the phase (a crash is a result, not noise).
    pub fn check_alive(&mut self) -> Result<()> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => Err(format!("the server exited during the phase: {status}").into()),
        }
    }

    /// The server's `VmRSS` now, in MiB (0 if unreadable).
    pub fn rss_mib(&self) -> f64 {
        os::rss_mib(self.pid()).map_or(0.0, |(rss, _)| rss)
    }

    /// User + system CPU seconds the server has used so far (0 if unreadable).
    pub fn cpu_seconds(&self) -> f64 {
        os::cpu_seconds(self.pid()).unwrap_or(0.0)
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        // SIGTERM first: the server shuts down gracefully, as it would in production.
        os::terminate(self.child.id());
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
