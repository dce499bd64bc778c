//! A server without the `long_job` tool: the probe cannot take its resumption steps, and
//! says so (`untested`, with the tools the server does list) instead of comparing or
//! inferring anything from steps it never took.
//!
//! The server here is `common`'s few lines over a blocking socket, answering `404` to
//! every GET (or closing it unanswered). A request with no answer is untested too, not a
//! row of "no answer" compared with the SDK servers' answers; and a server that does not
//! answer `initialize` with a result is no MCP server to compare: a clear error.

mod common;

#[test]
fn a_server_without_long_job_leaves_the_resumption_steps_untested() {
    let url = common::serve(|_| ("404 Not Found", String::new()));
    let probed = faultline_probe::probe(&url).expect("the probe runs");
    let untested: Vec<&str> = probed.untested.iter().map(|u| u.step.as_str()).collect();
    assert_eq!(
        untested,
        [
            "call",
            "resume_live",
            "resume_finished",
            "resume_evicted",
            "resume_other_session"
        ]
    );
    assert!(
        probed.untested[0].reason.contains("no `long_job` tool")
            && probed.untested[0].reason.contains("echo"),
        "{:?}",
        probed.untested[0]
    );
    // None of those steps has a row, so none is compared or inferred from.
    assert!(
        probed
            .rows
            .iter()
            .all(|r| !untested.contains(&r.step.as_str()))
    );
    assert!(
        probed
            .profiles
            .iter()
            .all(|c| c.steps_compared == probed.rows.len())
    );
    let text = probed.text();
    assert!(
        text.contains("untested: resume_live: no `long_job` tool"),
        "{text}"
    );
    let block = probed.inferred.server_block();
    assert!(block.contains("not probed (resume_live)"), "{block}");
}

/// GETs closed with no answer: each GET step is untested with the error, has no row, and
/// counts for no profile; the knob groups they reveal say they were not probed.
#[test]
fn a_step_with_no_answer_is_untested_not_a_row() {
    let url = common::serve(|_| ("", String::new()));
    let probed = faultline_probe::probe(&url).expect("the probe runs");
    for step in ["get", "get_second", "get_unknown_session", "get_no_session"] {
        let u = probed
            .untested
            .iter()
            .find(|u| u.step == step)
            .unwrap_or_else(|| panic!("{step} not untested: {:?}", probed.untested));
        assert!(u.reason.starts_with("no answer: "), "{u:?}");
        assert!(
            probed.rows.iter().all(|r| r.step != step),
            "{step} has a row"
        );
    }
    assert!(probed.rows.iter().all(|r| r.status != 0));
    // The DELETE was refused (404): the deleted-session POST after it asks a session that
    // may still live, and its row reveals nothing of a deleted one.
    let post_deleted = probed
        .unrevealing
        .iter()
        .find(|u| u.step == "post_deleted")
        .unwrap_or_else(|| panic!("{:?}", probed.unrevealing));
    assert!(
        post_deleted.reason.contains("the DELETE before it"),
        "{post_deleted:?}"
    );
    assert!(
        probed.unrevealing.iter().all(|u| u.step != "get_deleted"),
        "no row, so untested only"
    );
    let block = probed.inferred.server_block();
    assert!(
        block.contains("prime_standalone, standalone_get: not probed (get)"),
        "{block}"
    );
}

/// A server that answers `initialize` with no JSON-RPC result (here 501 to everything,
/// as a plain file server does) is refused with what it answered, not ranked beside the
/// SDK servers.
#[test]
fn a_server_that_is_not_mcp_is_a_clear_error() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "<html>Unsupported method</html>";
            let _ = write!(
                stream,
                "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let err = faultline_probe::probe(&url).expect_err("no MCP server there");
    assert!(
        err.contains("not an MCP server") && err.contains("initialize was answered 501"),
        "{err}"
    );
}
