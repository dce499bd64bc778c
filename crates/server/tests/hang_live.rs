//! A `Hang` answer over a real socket: the GET gets no response head while the server
//! goes on serving everyone else, and when the client gives up the model hears of it (the
//! hang is no longer open) and the ledger keeps the unanswered request.

use std::time::Duration;

use crate::common::*;
use faultline_model::{HangCause, StandaloneGet};
use serde_json::json;

#[tokio::test]
async fn a_hung_get_gets_no_head_and_stalls_nobody() {
    let mut config = faultline_server::Config::well_behaved(7)
        .with_control(true)
        .with_time_scale(0.0);
    config.knobs.standalone_get = StandaloneGet::Hang;
    let server = start(config).await;
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18").await;

    let get = tokio::spawn(Req::get(&session, None).send(addr));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!get.is_finished(), "the GET got an answer");

    // Everyone else is served meanwhile, this session's POSTs included.
    let ping = Req::post(Some(&session), &rpc(5, "ping", json!({})))
        .send(addr)
        .await;
    assert_eq!(ping.status(), 200);
    let hangs = ledger(addr).await.ledger.hangs;
    assert_eq!(hangs.len(), 1);
    assert_eq!(hangs[0].why, HangCause::StandaloneGet);

    let open_hangs = || server.app.with_engine(|e| e.server().open_hangs().count());
    assert_eq!(open_hangs(), 1, "the hung exchange is open");
    // The client gives up: its connection closes, and the server lets the hang go.
    get.abort();
    let closed = async {
        while open_hangs() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), closed)
        .await
        .expect("the server noticed the client leave");
}
