//! The fleet part of a run's trap, in words: how many replicas, how the balancer picks one,
//! and what each replica can see of sessions, event logs and notifications.
//!
//! A single server says nothing here. In a fleet the knobs combine: a balancer that does
//! not pin a session in front of per-replica sessions is the "Session not found with two
//! replicas, gone with one" report; a shared store keyed by stream replays one session's
//! events into another. Each sentence names its knob, as `knobs_story` does for a server.

use faultline_model::{
    Balancer, EventStoreScope, FleetKnobs, Notifications, SessionStoreScope, SharedKey,
};

/// One sentence per fleet knob that matters, or nothing for a single server.
pub(crate) fn fleet_trap(fleet: &FleetKnobs) -> Vec<String> {
    if !fleet.is_multi() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let pins_sessions = matches!(
        fleet.balancer,
        Balancer::StickySessionId | Balancer::StickyCookie | Balancer::ClientAddress
    );
    out.push(format!(
        "{} replicas serve one address, and {}.",
        fleet.replicas,
        match fleet.balancer {
            Balancer::RoundRobin =>
                "the balancer sends each request to the next replica in turn (`balancer: RoundRobin`)",
            Balancer::Random =>
                "the balancer sends each request to a replica drawn at random (`balancer: Random`)",
            Balancer::StickySessionId =>
                "the balancer pins each `Mcp-Session-Id` to one replica (`balancer: StickySessionId`); `initialize` carries no id, so it lands wherever round robin puts it",
            Balancer::StickyCookie =>
                "the balancer pins a client with an affinity cookie it sets on its first answer (`balancer: StickyCookie`): only a client that sends the cookie back stays on its replica",
            Balancer::ClientAddress =>
                "the balancer pins each client address to one replica (`balancer: ClientAddress`): a client moves only when its replica goes down",
        }
    ));
    out.push(match (fleet.session_store, pins_sessions) {
        (SessionStoreScope::PerReplica, false) => "Each replica knows only the sessions it minted (`session_store: PerReplica`), and nothing pins a session to its replica: most of a session's requests reach a replica that never saw it and are answered 404, as for a dead session.".into(),
        (SessionStoreScope::PerReplica, true) => "Each replica knows only the sessions it minted (`session_store: PerReplica`): a request that leaves its replica (a dropped cookie, a replica down, a deploy) is answered 404, as for a dead session, while the session lives on elsewhere.".into(),
        (SessionStoreScope::Shared, _) => "Every replica reads one session store (`session_store: Shared`): any replica can serve any live session.".into(),
    });
    out.push(match fleet.event_store {
        EventStoreScope::PerReplica => "Each replica keeps the event logs of the streams it opened (`event_store: PerReplica`): a `Last-Event-ID` resumes only on the replica that produced its events.".into(),
        EventStoreScope::Shared { by: SharedKey::Session } => "One event store serves every replica, keyed by session (`event_store: Shared(by: Session)`): a cursor resumes its own session's streams anywhere.".into(),
        EventStoreScope::Shared { by: SharedKey::Stream } => "One event store serves every replica, keyed by stream (`event_store: Shared(by: Stream)`), with every standalone stream under one key: resuming a standalone stream replays the retained events of every session's standalone stream above the cursor.".into(),
    });
    if fleet.notifications == Notifications::SameReplica {
        out.push("A notification reaches only listeners attached to the replica that published it (`notifications: SameReplica`): a listener whose GET landed elsewhere gets nothing live.".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_server_has_no_fleet_story() {
        assert!(fleet_trap(&FleetKnobs::default()).is_empty());
    }

    #[test]
    fn round_robin_over_per_replica_sessions_names_the_scatter() {
        let fleet = FleetKnobs {
            replicas: 3,
            ..FleetKnobs::default()
        };
        let story = fleet_trap(&fleet).join(" ");
        assert!(story.starts_with("3 replicas serve one address"), "{story}");
        assert!(story.contains("`balancer: RoundRobin`"), "{story}");
        assert!(story.contains("nothing pins a session"), "{story}");
        assert!(!story.contains("SameReplica"), "{story}");
    }

    #[test]
    fn a_stream_keyed_store_says_it_replays_other_sessions() {
        let fleet = FleetKnobs {
            replicas: 2,
            balancer: Balancer::StickySessionId,
            session_store: SessionStoreScope::Shared,
            event_store: EventStoreScope::Shared {
                by: SharedKey::Stream,
            },
            notifications: Notifications::SameReplica,
        };
        let story = fleet_trap(&fleet).join(" ");
        assert!(
            story.contains("every session's standalone stream"),
            "{story}"
        );
        assert!(story.contains("`session_store: Shared`"), "{story}");
        assert!(story.contains("`notifications: SameReplica`"), "{story}");
    }
}
