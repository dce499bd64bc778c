//! A modelled client knows an event's id only as the wire spells it: a server that writes
//! no `id:` (`id_format: Hidden`, the SDK servers without an event store) leaves it no
//! cursor, so it never sends `Last-Event-ID` there.

use faultline_sim::{ClientModel, run};

use crate::common::scenario;

/// The `Last-Event-ID`s the naive client sent when its call's stream was cut, on a
/// server that spells ids `format`.
fn cursors_sent(format: &str) -> Vec<Option<u64>> {
    let s = scenario(&format!(
        r#"Scenario(
    name: "cut",
    summary: "inline",
    seed: 1,
    horizon: Some("1h"),
    server: (id_format: {format}),
    client: (model: Naive, standalone_stream: false),
    workload: [CallTool(at: "0s", tool: LongJob(steps: 5, interval: "10s"))],
    faults: [Drop(when: AfterEvent(n: 2, on: Call(0)), mode: Reset, stream: Call(0))],
)"#
    ));
    run(&s, s.seed, ClientModel::Naive)
        .result
        .record
        .requests
        .iter()
        .filter(|r| r.http == "GET")
        .map(|r| r.last_event_id)
        .collect()
}

#[test]
fn a_client_resumes_only_from_ids_the_wire_spelled() {
    let numbered = cursors_sent("Number");
    assert!(
        numbered.first().is_some_and(|c| c.is_some()),
        "resumed with Last-Event-ID: {numbered:?}"
    );
    let hidden = cursors_sent("Hidden");
    assert!(
        hidden.iter().all(Option::is_none),
        "no id on the wire, no cursor to send: {hidden:?}"
    );
}
