//! What the operating system says about a process: RSS and CPU time from Linux `/proc`,
//! and the open-file limit.
//!
//! The server's memory and CPU are read from outside, by pid, so that the server itself
//! needs no instrumentation; the file limit is raised here because the RSS phase holds
//! one socket per stream on each side and the server child inherits the limit.

/// `VmRSS` and `VmHWM` (peak) of a process, in MiB; `None` where `/proc` cannot be read.
pub fn rss_mib(pid: u32) -> Option<(f64, f64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map(|kib| kib / 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// User + system CPU seconds a process has used so far.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the `(comm)`, which may itself contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    #[cfg(unix)]
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    #[cfg(not(unix))]
    let ticks = 100.0;
    Some((utime + stime) / ticks.max(1.0))
}

/// Raises this process's soft `RLIMIT_NOFILE` towards `want` (at most the hard limit);
/// the server child inherits it. Returns the soft limit in force afterwards.
#[cfg(unix)]
pub fn raise_nofile_limit(want: usize) -> libc::rlim_t {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read/write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        let want = want as libc::rlim_t;
        if lim.rlim_cur < want {
            let raised = libc::rlimit {
                rlim_cur: want.min(lim.rlim_max),
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    lim.rlim_cur
}

#[cfg(not(unix))]
pub fn raise_nofile_limit(_want: usize) -> u64 {
    0
}

/// Asks a process to stop (SIGTERM), as an orchestrator would in production.
#[cfg(unix)]
pub fn terminate(pid: u32) {
    // SAFETY: kill has no memory preconditions; the caller signals its own child.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGTERM);
    }
}

#[cfg(not(unix))]
pub fn terminate(_pid: u32) {}
