//! SDK server profiles: knob settings under which the model answers as a given official
//! SDK server does, edge for edge (`faultline serve --profile rmcp-3.11`, a scenario's
//! `server: (profile: "rmcp-3.11", …)`).
//!
//! A profile is data: a name, one line, and knob values. Nothing in the server asks which
//! profile it runs; what an SDK does that no knob could say became a knob first. Each
//! profile is checked against its real server, installed pinned from its registry, by the
//! black-box probe in `tests/profiles/` (`run.sh`), which writes the per-step comparison
//! to `docs/profiles.md` and fails when a profile's match falls below its recorded figure.

use crate::duration::PositiveDurationMs;
use crate::knobs::{
    DeadSessionAnswer, DeleteAnswer, Era, ErrorCodes, IdFormat, RefusalBody, RestartPersistence,
    ResumedStreamEnd, SecondStandalone, ServerKnobs, SessionIdHeader, UnknownCursor,
};

/// One SDK server, as knob values.
pub struct Profile {
    pub name: &'static str,
    /// One line: which server, with what.
    pub description: &'static str,
    knobs: fn() -> ServerKnobs,
}

impl Profile {
    pub fn knobs(&self) -> ServerKnobs {
        (self.knobs)()
    }
}

/// Every profile, in the order `faultline profiles` lists them.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "ts-1.32-store",
        description: "TypeScript SDK 1.32.2 (@modelcontextprotocol/sdk) with its example InMemoryEventStore, routed as simpleStreamableHttp",
        knobs: ts_1_32_store,
    },
    Profile {
        name: "ts-1.32",
        description: "TypeScript SDK 1.32.2 without an event store: no event ids, no resumption",
        knobs: ts_1_32,
    },
    Profile {
        name: "ts-2.4",
        description: "TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) createMcpHandler: 2025 traffic served statelessly",
        knobs: ts_2_4,
    },
    Profile {
        name: "python-2.3-store",
        description: "Python SDK (mcp 2.3.0) with the example event store (100 events per stream, one store for all sessions)",
        knobs: python_2_3_store,
    },
    Profile {
        name: "python-2.3",
        description: "Python SDK (mcp 2.3.0) without an event store: no event ids",
        knobs: python_2_3,
    },
    Profile {
        name: "rmcp-3.11",
        description: "Rust SDK rmcp 3.11.0 with its defaults: LocalSessionManager, 16-event window, 300 s idle sessions",
        knobs: rmcp_3_11,
    },
];

/// The profile called `name`; an unknown name's error lists the known ones.
pub fn profile(name: &str) -> Result<&'static Profile, String> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let known: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        format!("unknown profile {name:?}; known: {}", known.join(", "))
    })
}

fn minutes(m: u64) -> Option<PositiveDurationMs> {
    PositiveDurationMs::new(m * 60_000)
}

/// What the SDK servers share, against the model's well-behaved defaults: no session-wide
/// monotonic ids advertised, nothing survives a restart, answers over SSE, no eviction.
fn sdk_base() -> ServerKnobs {
    ServerKnobs {
        advertise_monotonic_ids: false,
        restart_persistence: RestartPersistence::Nothing,
        json_responses: false,
        all_answers_over_sse: true,
        event_log_capacity: None,
        dead_session_answer: DeadSessionAnswer::NotFound,
        ..ServerKnobs::default()
    }
}

fn ts_1_32_store() -> ServerKnobs {
    ServerKnobs {
        id_format: IdFormat::StreamMsRandom,
        priming_events: true,
        prime_standalone: false,
        // The example store answers an id it does not know (another session's, or one
        // that never was) with '' and the transport serves a silent stream.
        unknown_cursor: UnknownCursor::FreshStream,
        resumed_stream_end: ResumedStreamEnd::OpenIfFinished,
        error_codes: ErrorCodes {
            invalid_request: -32000,
            ..ErrorCodes::default()
        },
        accept_wildcard: false,
        session_id_header: SessionIdHeader::Answers,
        ..sdk_base()
    }
}

fn ts_1_32() -> ServerKnobs {
    ServerKnobs {
        id_format: IdFormat::Hidden,
        priming_events: false,
        // Without a store, `Last-Event-ID` is ignored: a plain standalone stream.
        unknown_cursor: UnknownCursor::FreshStream,
        ..ts_1_32_store()
    }
}

fn ts_2_4() -> ServerKnobs {
    ServerKnobs {
        era: Era::DualStatelessLegacy,
        id_format: IdFormat::Hidden,
        priming_events: false,
        ..ts_1_32()
    }
}

fn python_2_3_store() -> ServerKnobs {
    ServerKnobs {
        session_idle_ttl: minutes(30),
        event_log_capacity: Some(100),
        id_format: IdFormat::Uuid,
        priming_events: true,
        prime_standalone: false,
        unknown_cursor: UnknownCursor::Empty200,
        resumed_stream_end: ResumedStreamEnd::Open,
        prime_resumed: true,
        session_id_header: SessionIdHeader::Every,
        error_codes: ErrorCodes {
            session_not_found: -32600,
            ..ErrorCodes::default()
        },
        cursors_across_sessions: true,
        ..sdk_base()
    }
}

fn python_2_3() -> ServerKnobs {
    ServerKnobs {
        id_format: IdFormat::Hidden,
        priming_events: false,
        unknown_cursor: UnknownCursor::ServerError,
        cursors_across_sessions: false,
        ..python_2_3_store()
    }
}

fn rmcp_3_11() -> ServerKnobs {
    ServerKnobs {
        session_idle_ttl: PositiveDurationMs::new(300_000),
        event_log_capacity: Some(16),
        // rmcp numbers each stream from 0 and tells streams apart by the `/<request>`
        // suffix; session-wide numbers in the same spelling keep every cursor unambiguous.
        id_format: IdFormat::IndexSlashRequest,
        priming_events: true,
        retry: PositiveDurationMs::new(3_000),
        unknown_cursor: UnknownCursor::Empty200,
        evicted_cursor: Some(UnknownCursor::ReplayRemaining),
        replay_from_cursor: true,
        keep_answered_streams: false,
        accept_wildcard: false,
        refusal_body: RefusalBody::Text,
        delete_answer: DeleteAnswer::Accepted202,
        second_standalone: SecondStandalone::Shadow,
        ..sdk_base()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_valid_and_named_once() {
        let mut names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        for p in PROFILES {
            p.knobs()
                .validate()
                .unwrap_or_else(|e| panic!("{}: {e}", p.name));
            assert!(!p.description.is_empty() && !p.description.contains('\n'));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len());
    }

    #[test]
    fn an_unknown_profile_is_refused_with_the_known_names() {
        let e = profile("rmcp-9").err().expect("unknown");
        assert!(
            e.contains("\"rmcp-9\"") && e.contains("rmcp-3.11") && e.contains("ts-2.4"),
            "{e}"
        );
        assert_eq!(profile("rmcp-3.11").map(|p| p.name), Ok("rmcp-3.11"));
    }

    #[test]
    fn profiles_differ_from_the_defaults_where_their_servers_do() {
        let rmcp = profile("rmcp-3.11").unwrap().knobs();
        assert!(rmcp.replay_from_cursor && !rmcp.keep_answered_streams);
        assert_eq!(rmcp.event_log_capacity, Some(16));
        let py = profile("python-2.3-store").unwrap().knobs();
        assert_eq!(py.event_log_capacity, Some(100));
        assert_eq!(py.id_format, IdFormat::Uuid);
    }
}
