//! Which guard catches which failure, and the decision rule it applies.
//!
//! One table, keyed by verdict kind, shared by `explain` and the failure-modes document,
//! so that the advice printed after a run and the advice in the docs cannot drift apart.
//! The rules are the ones Behavior A, Behavior B and the 404-after-replay cascade call for
//! (see README.md, "The incidents"), stated as the guarded client in
//! `crates/sim/src/client.rs` applies them.

use faultline_sim::{Evidence, Verdict, VerdictKind};

/// A guard and how it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// Short name, used in explanations and tests.
    pub name: &'static str,
    /// The decision rule, in one or two sentences.
    pub rule: &'static str,
    /// The one-line fix.
    pub fix: &'static str,
}

/// The guard that prevents (or, for `detected` and `clean`, explains) a verdict kind.
pub fn guard_for(kind: VerdictKind) -> Guard {
    match kind {
        VerdictKind::Clean => Guard {
            name: "no guard needed",
            rule: "nothing was lost or misapplied, so no guard had to fire.",
            fix: "nothing to fix; keep the guards that kept it clean.",
        },
        VerdictKind::SilentGap => Guard {
            name: "contiguity check",
            rule: "on a resumed stream the first event must be exactly `cursor + 1`; a replay that is empty, restarts at 1 or jumps ahead raises ResumptionCursorError, and the client re-initializes and re-issues the call under its idempotency key.",
            fix: "client: check `first == cursor + 1` on every resumption; server: never restart ids on a fresh stream, answer 400 to a cursor it cannot honour.",
        },
        VerdictKind::CursorReuse => Guard {
            name: "monotonic-id capability gating",
            rule: "send `Last-Event-ID` only if `initialize` advertised session-lifetime monotonic ids (`capabilities.experimental.resumption.sessionMonotonicEventIds`); without it, a dropped stream ends the session: re-initialize with an idempotency key.",
            fix: "server: number ids across the session's life (or add an epoch) and advertise it only when true; client: gate every cursor on that capability.",
        },
        VerdictKind::ZombieSession => Guard {
            name: "liveness probe after replay",
            rule: "after every replay send a session-scoped `ping` before trusting the session: replay 200 + probe 200 -> live; replay 200 + probe 404/410 -> dead: quarantine the replay, drop cursor and session id, re-initialize; replay 404/410 -> the same teardown.",
            fix: "client: probe liveness after every replay; server: validate the session on the SSE GET.",
        },
        VerdictKind::RetryAmplification => Guard {
            name: "no retries into a dead session",
            rule: "a 404/410 on a session-scoped request is a SessionResumptionError, not a transient failure: stop, re-initialize once, re-issue the call under its idempotency key.",
            fix: "client: map 404/410 to session teardown, never to backoff-and-retry.",
        },
        VerdictKind::ReinitCollision => Guard {
            name: "one shared session handle",
            rule: "every task reads the session id from one handle that re-initialization replaces; no task keeps its own copy of an id.",
            fix: "client: share one session handle across tasks and swap it atomically on re-initialize.",
        },
        VerdictKind::QuarantineViolation => Guard {
            name: "quarantine",
            rule: "replayed events are buffered until the liveness probe answers; if it answers 404/410 they belong to a dead session and are dropped, never applied.",
            fix: "client: buffer a replay until liveness is confirmed and discard it if the session is dead.",
        },
        VerdictKind::ForeignEvent => Guard {
            name: "session-scoped event store",
            rule: "apply an event only on the session and stream that asked for it; a server keys its event store by (session, stream), never by stream id alone.",
            fix: "server: key the event store by session; client: refuse events whose stream was not opened in this session.",
        },
        VerdictKind::Duplicate => Guard {
            name: "one cursor, one stream",
            rule: "a cursor names one event of one stream: resume a stream only with a cursor minted on it, replay strictly after it on that stream (first == cursor + 1), and deduplicate by (stream, id), never by id alone; session-unique ids make all three checkable.",
            fix: "server: session-unique ids, replay strictly after the cursor on its own stream; client: deduplicate by (stream, id).",
        },
        VerdictKind::SurfacedLoss => Guard {
            name: "typed resumption errors with idempotent re-issue",
            rule: "raise ResumptionCursorError or SessionResumptionError (not a generic failure), re-initialize, and re-issue every unfinished call under its idempotency key, at most three times.",
            fix: "client: turn resumption failures into typed errors and re-issue unfinished calls idempotently.",
        },
        VerdictKind::MisroutedSession => Guard {
            name: "session affinity or a shared session store",
            rule: "every request of a session must reach a replica that holds it: pin on `Mcp-Session-Id` at the balancer, or keep sessions in a store every replica reads; a client cannot tell a misroute from a dead session, so it must treat the 404 as one and re-initialize at most a bounded number of times.",
            fix: "deployment: sticky routing on `Mcp-Session-Id` or a shared session store; client: typed SessionResumptionError on 404, capped re-initialization.",
        },
        VerdictKind::DuplicateEffect => Guard {
            name: "no blind re-issue of a non-idempotent call",
            rule: "a 2026-07-28 request stream cut before its response cannot be resumed, and the call may or may not have taken effect: re-issue it only if its tool is idempotent (`idempotentHint`); otherwise raise CallCutError and let the application find out whether it took effect.",
            fix: "client: never re-issue a cut non-idempotent call blindly; server: give such tools an idempotency key the server deduplicates, or run them as tasks that survive the stream.",
        },
        VerdictKind::MissedChange => Guard {
            name: "listen again, then list again",
            rule: "a 2026-07-28 listen stream keeps no state across reconnections and replays nothing: when it drops, listen again, and once the new listen is acknowledged list again, since a change made meanwhile was never sent; honour `ttlMs` rather than keeping a list for a day.",
            fix: "client: watch the listen stream's end (`closed`, `SubscriptionLost`), re-listen with backoff and re-list after every listen reconnect; server: keep `ttlMs` short for lists that change.",
        },
        VerdictKind::LostTask => Guard {
            name: "a vanished task is an error, not a result",
            rule: "a 2026-07-28 task id is the only handle on durable work: keep it, poll `tasks/get` within its `ttlMs`, and when the server answers -32602 for it raise TaskLostError; never take a task the server forgot for a finished one.",
            fix: "client: raise TaskLostError on -32602 for a kept task id; server: persist task records across restarts (terminal ones at least, reporting interrupted work `failed`) and purge only well after `ttlMs`.",
        },
        VerdictKind::EraMismatch => Guard {
            name: "probe by the spec's rule, probe again on failure",
            rule: "read a `server/discover` probe as the versioning page says: a result or a 400 with a 2026-07-28 code (-32020, -32021, -32022) means modern, anything else means fall back to `initialize`; cache the era per origin but probe again as soon as a request fails under it; and accept a 2025 server that answers `initialize` without `Mcp-Session-Id` (sessions are optional in 2025).",
            fix: "client: fall back on every non-modern probe answer, re-probe when the cached era fails, work sessionless when no session is given; server: answer a modern probe with 404 -32601 or a recognised code, and keep both eras served through a rollout.",
        },
        VerdictKind::ReconnectLoop => Guard {
            name: "bounded reconnects without progress",
            rule: faultline_verdicts::reconnect_loop::GUARD,
            fix: "client: count reconnects and retries that delivered nothing new, reset the count only on a delivered event, give up after a few and surface the failure; server: answer a cursor it cannot honour with 400, not an empty 200 that looks like success.",
        },
        VerdictKind::RefusedWithoutRecovery => Guard {
            name: "a dead session is replaced, once",
            rule: faultline_verdicts::refused_without_recovery::GUARD,
            fix: "client: on a 404 to a request that named the session, clear the session id, initialize once and re-send the work; settle a 400 or 401 naming the session with a ping before giving up on it; server: answer a session it no longer holds with 404, as the spec says.",
        },
        VerdictKind::SessionAbandoned => Guard {
            name: "a session ends on a 404 or a DELETE, nothing else",
            rule: faultline_verdicts::session_abandoned::GUARD,
            fix: "client: treat a refused or cut GET, a 409 or a timeout as a stream problem (reconnect it, or go on without it), not a session problem; when in doubt, ping the session; DELETE a session you do end; server and proxies: answer a route without GET with 405, never 404.",
        },
        VerdictKind::Untested => Guard {
            name: "exercise what you test",
            rule: "a verdict is a claim: every call the scenario plans must reach the server and every one of its faults must meet the client before anything can be called clean; a run where one did not tested only part of what it plans.",
            fix: "harness: check the client is wired (URL, call, progress token, the standalone GET stream) so the scenario's faults have something to act on; scenario: time faults by events the client will cause, and aim a drop at a stream the client has open.",
        },
        VerdictKind::Hung => Guard {
            name: "a deadline on every call",
            rule: "every call the application waits on has a deadline: when it passes, the client stops trying and fails the call with an error the application sees, whatever the transport is still doing; a server's `retry:` is honoured only up to the client's own longest wait (the guarded client's: 30 s).",
            fix: "client: give every call (and every resumption of its stream) an overall timeout that ends in an error, and cap a server's `retry:` by it; never leave the application waiting on a retry loop.",
        },
        VerdictKind::Crashed => Guard {
            name: "fail the call, not the process",
            rule: "whatever breaks under a call (a dropped stream, a refused resumption, an unsettled promise), the client turns it into an error the application sees; the process lives on to say so.",
            fix: "client: catch what the transport throws around every call and report it as the call's error; adapter: print the report in a `finally`.",
        },
        VerdictKind::BadReport => Guard {
            name: "report what the application was handed",
            rule: "the last line of stdout is one JSON object with `progress`, `notifications`, `result` and `error` (docs/client-contract.md); without it nothing the client did can be judged.",
            fix: "adapter: print the report as the last stdout line, whatever happened, and log elsewhere.",
        },
        VerdictKind::NotApplicable => Guard {
            name: "declare what you cannot do",
            rule: "a client without a progress or notification handler says so (`supports`), and is not graded on scenarios about what it never receives.",
            fix: "nothing to fix unless the application needs progress or notifications; then add the handler and drop the declaration.",
        },
        VerdictKind::OutOfOrder => Guard {
            name: "hand events over in the order they came",
            rule: "a client hands a stream's notifications to the application in the order the server sent them: one handler queue per stream, not one task per notification.",
            fix: "client: dispatch each stream's notifications through one ordered queue (or await each handler before the next); application: never assume the last progress value seen is the latest.",
        },
        VerdictKind::OtherEra => Guard {
            name: "grade each era on its own set",
            rule: "a 2026-07-28 client meets no 2025 fault and a 2025 client no 2026-07-28 one: grade a client on the set of the era it negotiates.",
            fix: "harness: run `faultline grade --era modern` for a client that negotiates 2026-07-28, the default for a 2025 client; or pin the client's protocol version.",
        },
        VerdictKind::Detected => Guard {
            name: "typed resumption errors",
            rule: "a guard fired and raised a typed error; the client tore the session down, re-initialized and re-issued what was unfinished, so nothing was lost silently.",
            fix: "nothing to fix on the client; the server's trap is still there for other clients.",
        },
    }
}

/// The guard that would have caught this particular verdict, read from its evidence and
/// the run's other verdicts. A gap whose cursor was honoured in another generation's
/// numbering replays *contiguously*: the contiguity check cannot see it, only capability
/// gating can. Every other gap is caught by the contiguity check.
pub fn guard_for_verdict(verdict: &Verdict, all: &[Verdict]) -> Guard {
    match (&verdict.evidence, verdict.kind) {
        (Evidence::Gap { session, .. }, VerdictKind::SilentGap) => {
            let reused = all.iter().any(
                |v| matches!(&v.evidence, Evidence::CursorReuse { session: s, .. } if s == session),
            );
            if reused {
                guard_for(VerdictKind::CursorReuse)
            } else {
                guard_for(VerdictKind::SilentGap)
            }
        }
        (_, kind) => guard_for(kind),
    }
}

/// The guards that fired, read from a typed error's text.
pub fn guards_fired(error: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if error.starts_with("ResumptionCursorError") {
        if error.contains("did not negotiate") {
            out.push(guard_for(VerdictKind::CursorReuse).name);
        } else {
            out.push(guard_for(VerdictKind::SilentGap).name);
        }
    }
    if error.starts_with("CallCutError") {
        out.push(guard_for(VerdictKind::DuplicateEffect).name);
    }
    if error.starts_with("TaskLostError") {
        out.push(guard_for(VerdictKind::LostTask).name);
    }
    if error.starts_with("SessionResumptionError") {
        if error.contains("despite successful SSE replay") || error.contains("liveness probe") {
            out.push(guard_for(VerdictKind::ZombieSession).name);
            out.push(guard_for(VerdictKind::QuarantineViolation).name);
        } else {
            out.push(guard_for(VerdictKind::RetryAmplification).name);
        }
    }
    out
}
