//! The transport limits of the live server: what one client (or a crowd of them) may hold
//! of it before it says no.
//!
//! Why they exist: a server reachable by any program on the machine must not be frozen or
//! exhausted by one of them. A connection that never finishes its request headers, an idle
//! keep-alive connection, a flood of connections up to the descriptor limit, and an SSE
//! stream nobody reads would each hold a descriptor or memory forever. Every limit has a
//! `faultline serve` flag; the README's "Limits" section lists them with their defaults.

use std::time::Duration;

/// Request headers must be complete this long after the first byte of the request arrived
/// (or the connection opened, for its first request); the body then gets as long again.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// A keep-alive connection with no request in flight and no byte received is closed
/// after this long.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// Bytes of SSE frames that may wait for one stream's reader before a stall counts.
pub const DEFAULT_STREAM_QUEUE_BYTES: usize = 1 << 20;

/// A stream over its queue bound whose reader took nothing for this long is cut.
pub const DEFAULT_STREAM_STALL: Duration = Duration::from_secs(5);

/// Connections used when the descriptor limit cannot be read.
const FALLBACK_MAX_CONNECTIONS: usize = 900;

/// Descriptors kept back from the cap for the listener, logs, and refusals in progress.
const DESCRIPTORS_RESERVED: u64 = 64;

/// The transport limits (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// See [`DEFAULT_HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// See [`DEFAULT_IDLE_TIMEOUT`].
    pub idle_timeout: Duration,
    /// Open connections; one more is answered 503 with a sentence and closed.
    pub max_connections: usize,
    /// See [`DEFAULT_STREAM_QUEUE_BYTES`].
    pub stream_queue_bytes: usize,
    /// See [`DEFAULT_STREAM_STALL`].
    pub stream_stall: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: default_max_connections(),
            stream_queue_bytes: DEFAULT_STREAM_QUEUE_BYTES,
            stream_stall: DEFAULT_STREAM_STALL,
        }
    }
}

/// The open-descriptor limit (soft), when the OS says.
fn descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit through a valid pointer and nothing else.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        // `rlim_t` is not `u64` on every unix.
        #[allow(clippy::unnecessary_cast)]
        let soft = limit.rlim_cur as u64;
        (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(soft)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Below the descriptor limit by [`DESCRIPTORS_RESERVED`] (at least 16), or
/// [`FALLBACK_MAX_CONNECTIONS`] when it cannot be read.
pub fn default_max_connections() -> usize {
    match descriptor_limit() {
        Some(limit) => limit.saturating_sub(DESCRIPTORS_RESERVED).max(16) as usize,
        None => FALLBACK_MAX_CONNECTIONS,
    }
}
