//! A server without the `long_job` tool: the probe cannot take its resumption steps, and
//! says so (`untested`, with the tools the server does list) instead of comparing or
//! inferring anything from steps it never took.
//!
//! The server here is `common`'s few lines over a blocking socket, answering `404` to
//! every GET.

mod common;

#[test]
fn a_server_without_long_job_leaves_the_resumption_steps_untested() {
    let url = common::serve(|_| ("404 Not Found", String::new()));
    let probed = faultline_probe::probe(&url).expect("the probe runs");
    let untested: Vec<&str> = probed.untested.iter().map(|u| u.step).collect();
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
