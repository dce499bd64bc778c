//! Cancel on close: on 2026-07-28 a request stream is the call. When the connection
//! carrying it closes (the client went away, a middlebox cut it, the server dropped it),
//! nobody can ever receive what the job produces next, so the job ends as the
//! `on_stream_cut` knob says, recorded as `JobEnd::StreamClosed`:
//!
//! | `on_stream_cut` | the job |
//! |---|---|
//! | `StopAtOnce` | ends at the cut; a commit not yet made never happens |
//! | `FinishThroughCommit` | runs silently through its commit step, then ends (at once if it has none left) |
//! | `RunToEnd` | runs silently to its last step, then ends |
//!
//! "Silently": after a cut the job produces no event at all.
//! <https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http>

use crate::http::Output;
use crate::ids::{ConnId, JobId, StreamId};
use crate::knobs::OnStreamCut;
use crate::ledger::JobEnd;

use super::super::Server;

impl Server {
    /// Records that the connection `conn`, about to be cut with the process (a restart, a
    /// replica going down), was carrying a 2026-07-28 request stream still being written:
    /// the stream was cut before it completed, as a dropped connection's is, though its job
    /// dies with the process rather than reacting to the cut.
    pub(in crate::server) fn note_request_stream_cut(&mut self, conn: ConnId) {
        if let Some(stream) = self
            .stream_of(conn)
            .filter(|s| self.modern.is_request_stream(*s))
        {
            self.ledger.stream_mut(stream).closed_ms = Some(self.now_ms);
        }
    }

    /// `stream` (read by a connection that just closed, if any) lost its reader: if it is
    /// a 2026-07-28 request stream still being written, its job reacts to the cut; if it
    /// is a listen stream, its subscription ends ([`super::listen`]).
    pub(in crate::server) fn close_modern_stream(
        &mut self,
        stream: Option<StreamId>,
        out: &mut Vec<Output>,
    ) {
        if stream.is_some_and(|s| self.close_listen(s)) {
            return;
        }
        let Some(stream) = stream.filter(|s| self.modern.is_request_stream(*s)) else {
            return;
        };
        let now = self.now_ms;
        self.ledger.stream_mut(stream).closed_ms = Some(now);
        let jobs: Vec<JobId> = self
            .log
            .get(stream)
            .map(|l| l.open_jobs.clone())
            .unwrap_or_default();
        for job in jobs {
            let Some(j) = self.modern.job_mut(job) else {
                continue;
            };
            j.cut_ms = Some(now);
            let stop = match self.knobs.on_stream_cut {
                OnStreamCut::StopAtOnce => true,
                OnStreamCut::FinishThroughCommit => !j.commit_pending(),
                OnStreamCut::RunToEnd => false,
            };
            if stop {
                self.end_job(job, now, JobEnd::StreamClosed, out);
            }
        }
    }
}
