//! The oracle's `misrouted_session`, on a hand-built ledger: each session with misroutes of
//! the client's own requests gets one verdict naming the answering replica and the holder,
//! and it is not a loss.

use faultline_model::{ConnId, HeldBy, Ledger, MisrouteEntry, ReplicaId, SessionEntry, SessionKey};
use faultline_sim::{ClientRecord, Evidence, RequestRecord, Task, VerdictKind};
use faultline_verdicts::{Observation, Words, judge};

fn session(wire_id: &str) -> SessionEntry {
    SessionEntry {
        wire_id: wire_id.into(),
        created_ms: 0,
        generations: vec![0],
        died: None,
        stateless: false,
        held_by: Some(HeldBy::Replica(ReplicaId(0))),
    }
}

fn request(conn: u64, at_ms: u64, session: &str) -> RequestRecord {
    RequestRecord {
        at_ms,
        conn: ConnId(conn),
        task: Task::Main,
        http: "POST",
        rpc: Some("tools/call".into()),
        session: Some(session.into()),
        last_event_id: None,
        status: Some(404),
        sent_seq: conn,
        answered_seq: Some(conn + 1),
        call: Some(0),
    }
}

fn misroute(conn: u64, at_ms: u64, session: u32, answered_by: u8) -> MisrouteEntry {
    MisrouteEntry {
        conn: ConnId(conn),
        at_ms,
        session: SessionKey(session),
        answered_by: ReplicaId(answered_by),
        held_by: ReplicaId(0),
        holder_down_until: None,
    }
}

#[test]
fn each_misrouted_session_gets_one_verdict_with_both_replicas() {
    let ledger = Ledger {
        sessions: vec![session("aaaa"), session("bbbb")],
        misroutes: vec![
            misroute(2, 1_000, 0, 1),
            misroute(3, 2_000, 0, 2),
            misroute(5, 3_000, 1, 2),
            // Not the client's request (no record of conn 9): not the client's misroute.
            misroute(9, 4_000, 1, 1),
        ],
        ..Ledger::default()
    };
    let record = ClientRecord {
        requests: vec![
            request(2, 1_000, "aaaa"),
            request(3, 2_000, "aaaa"),
            request(5, 3_000, "bbbb"),
        ],
        ..ClientRecord::default()
    };
    let verdicts = judge(&Observation::modelled(&ledger, &record), Words::Written);
    let misrouted: Vec<_> = verdicts
        .iter()
        .filter(|v| v.kind == VerdictKind::MisroutedSession)
        .collect();
    assert_eq!(misrouted.len(), 2, "{verdicts:#?}");
    let Evidence::Misrouted(first) = &misrouted[0].evidence else {
        panic!("{:?}", misrouted[0].evidence);
    };
    let (session, held_by, requests) = (&first.session, &first.held_by, &first.requests);
    assert_eq!((session.as_str(), *held_by), ("aaaa", 0));
    let answered: Vec<(u64, u8, Option<u16>)> = requests
        .iter()
        .map(|r| (r.at_ms, r.answered_by, r.status))
        .collect();
    assert_eq!(answered, vec![(1_000, 1, Some(404)), (2_000, 2, Some(404))]);
    assert_eq!(misrouted[0].at_ms, 1_000);
    let Evidence::Misrouted(second) = &misrouted[1].evidence else {
        panic!();
    };
    let requests = &second.requests;
    assert_eq!(requests.len(), 1, "conn 9 is not the client's");
    assert!(!VerdictKind::MisroutedSession.is_loss());
    assert!(
        verdicts.iter().all(|v| v.kind != VerdictKind::Clean),
        "a misroute is not clean"
    );
}

#[test]
fn a_ledger_without_misroutes_gets_no_such_verdict() {
    let ledger = Ledger {
        sessions: vec![session("aaaa")],
        ..Ledger::default()
    };
    let record = ClientRecord {
        requests: vec![request(2, 1_000, "aaaa")],
        ..ClientRecord::default()
    };
    let verdicts = judge(&Observation::modelled(&ledger, &record), Words::Written);
    assert!(
        verdicts
            .iter()
            .all(|v| v.kind != VerdictKind::MisroutedSession)
    );
}
