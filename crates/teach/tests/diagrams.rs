//! The diagrams of the three seed incidents, checked as a reader would: the SVG parses
//! (roxmltree), renders (resvg), has the expected lanes and event ids, and marks the
//! moment of harm where the seed says it is. Also: huge runs stay small, hostile text is
//! escaped, and a bad trace line is reported by number.

use std::path::PathBuf;

use faultline_sim::{ClientModel, IdRanges, RunOutcome, Scenario, TraceError};
use faultline_teach::{Format, MAX_ROWS, diagram_of_trace, pin_verdicts, read_trace, render};

fn scenario(name: &str) -> Scenario {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "scenarios", name]
        .iter()
        .collect();
    Scenario::load(&path).expect("bundled scenario loads")
}

fn run(name: &str, client: ClientModel) -> (RunOutcome, String) {
    let s = scenario(name);
    let outcome = faultline_sim::run(&s, s.seed, client);
    let text = outcome.trace_jsonl();
    (outcome, text)
}

fn svg_of(outcome: &RunOutcome, text: &str, format: Format) -> String {
    let mut d = diagram_of_trace(text, &outcome.scenario).expect("trace parses");
    pin_verdicts(&mut d, &outcome.verdicts);
    render(d, format)
}

/// Parses and rasterizes the SVG; returns how many pixels are not white.
fn check_renders(svg: &str) -> usize {
    roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .expect("resvg accepts the SVG");
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).expect("non-empty size");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    let png = pixmap.encode_png().expect("encodes as PNG");
    assert!(png.starts_with(b"\x89PNG"), "PNG signature");
    pixmap
        .pixels()
        .iter()
        .filter(|p| (p.red(), p.green(), p.blue()) != (255, 255, 255))
        .count()
}

/// Rows of the diagram: (attributes of the `<g class="row">`, all text inside it).
fn rows(svg: &str) -> Vec<(Vec<(String, String)>, String)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("g")
                && n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == "row"))
        })
        .map(|g| {
            let attrs = g
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect();
            let text: String = g
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .filter_map(|n| n.text())
                .collect::<Vec<_>>()
                .join(" ");
            (attrs, text)
        })
        .collect()
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn lanes(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    let mut out: Vec<String> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("lane"))
        .filter_map(|n| n.attribute("data-lane").map(str::to_string))
        .collect();
    out.dedup();
    out.truncate(out.len() / 2); // drawn at the top and at the bottom
    out
}

/// Expands `1..=40, 41` into ids.
fn ids(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for part in text.split(", ").filter(|p| !p.is_empty()) {
        match part.split_once("..=") {
            Some((a, b)) => out.extend(a.parse::<u64>().unwrap()..=b.parse::<u64>().unwrap()),
            None => out.push(part.parse().unwrap()),
        }
    }
    out
}

#[test]
fn behavior_a_highlights_ids_1_to_41_of_the_fresh_stream_as_lost() {
    let (outcome, text) = run("behavior_a.ron", ClientModel::Naive);
    let svg = svg_of(&outcome, &text, Format::Svg);
    assert!(check_renders(&svg) > 1000, "the picture is not blank");
    assert_eq!(
        lanes(&svg),
        [
            "client: main",
            "network",
            "HTTP server",
            "session store",
            "event log"
        ]
    );
    let rows = rows(&svg);
    // The fresh stream: the resumption GET answered with SSE stream #1.
    let mut lost: Vec<u64> = rows
        .iter()
        .filter(|(a, _)| {
            attr(a, "data-harm") == Some("lost") && attr(a, "data-stream") == Some("1")
        })
        .flat_map(|(a, _)| ids(attr(a, "data-ids").unwrap()))
        .collect();
    lost.sort_unstable();
    assert_eq!(lost, (1..=41).collect::<Vec<_>>());
    // Nothing of the first stream is marked, and the applied run 1..=41 is shown.
    assert!(rows.iter().any(|(a, t)| attr(a, "data-stream") == Some("0")
        && attr(a, "data-ids") == Some("1..=41")
        && attr(a, "data-harm").is_none()
        && t.contains("applied")));
    // The verdict is pinned on the first lost row, and the legend names it.
    let first_lost = rows
        .iter()
        .find(|(a, _)| attr(a, "data-harm") == Some("lost"))
        .unwrap();
    assert_eq!(attr(&first_lost.0, "data-verdicts"), Some("silent_gap"));
    assert!(first_lost.1.contains("SKIPPED as already seen"));
    assert!(svg.contains(r#"data-kind="silent_gap""#));
}

#[test]
fn behavior_b_shows_cursor_41_honoured_in_generation_2() {
    let (outcome, text) = run("behavior_b.ron", ClientModel::Naive);
    let svg = svg_of(&outcome, &text, Format::Svg);
    check_renders(&svg);
    let rows = rows(&svg);
    let resume = rows
        .iter()
        .find(|(a, _)| attr(a, "data-last-event-id") == Some("41"))
        .expect("the resumption GET is drawn");
    assert!(resume.1.contains("Last-Event-ID: 41"));
    let reuse = rows
        .iter()
        .find(|(a, _)| attr(a, "data-harm") == Some("cursor-reuse"))
        .expect("the replay after cursor 41 is marked");
    assert_eq!(attr(&reuse.0, "data-generation"), Some("2"));
    assert_eq!(attr(&reuse.0, "data-replay"), Some("true"));
    assert_eq!(ids(attr(&reuse.0, "data-ids").unwrap())[0], 42);
    assert!(
        reuse
            .1
            .contains("Last-Event-ID 41 was minted in generation 1 and honoured in generation 2")
    );
    assert!(
        attr(&reuse.0, "data-verdicts")
            .unwrap()
            .contains("cursor_reuse")
    );
    // Generation 2's ids 1..=41 never reached the client: only the verdicts know.
    let never = rows
        .iter()
        .find(|(a, _)| attr(a, "data-harm") == Some("never-delivered"))
        .expect("the never-delivered ids are drawn");
    assert_eq!(attr(&never.0, "data-ids"), Some("1..=41"));
    assert_eq!(attr(&never.0, "data-generation"), Some("2"));
}

#[test]
fn cascade_marks_the_404_at_33m_and_the_stale_task_request() {
    let (outcome, text) = run("replay_404_cascade.ron", ClientModel::Naive);
    let svg = svg_of(&outcome, &text, Format::Svg);
    check_renders(&svg);
    assert_eq!(
        lanes(&svg),
        [
            "client: main",
            "client: stale-1",
            "network",
            "HTTP server",
            "session store",
            "event log"
        ]
    );
    let rows = rows(&svg);
    let dead = rows
        .iter()
        .find(|(a, _)| attr(a, "data-harm") == Some("dead-session"))
        .expect("the 404 is marked");
    assert_eq!(attr(&dead.0, "data-at-ms"), Some("1980000"));
    assert_eq!(attr(&dead.0, "data-status"), Some("404"));
    assert!(dead.1.contains("T+33m"));
    assert!(dead.1.contains("zombie_session"));
    let stale: Vec<_> = rows
        .iter()
        .filter(|(a, _)| attr(a, "data-task") == Some("stale-1"))
        .collect();
    assert_eq!(stale.len(), 4);
    assert!(
        stale
            .iter()
            .all(|(a, _)| attr(a, "data-harm") == Some("collision"))
    );
    assert!(stale[0].1.contains("reinit_collision"));
    // The 4,471-event stream is one band, the replay another.
    assert!(
        rows.iter()
            .any(|(a, _)| attr(a, "data-ids") == Some("1..=4471")
                && attr(a, "data-count") == Some("4471"))
    );
    assert!(
        rows.iter()
            .any(|(a, _)| attr(a, "data-ids") == Some("4472..=4473")
                && attr(a, "data-replay") == Some("true"))
    );
    assert!(rows.len() < 80, "{} rows", rows.len());
    // Idle spans are marked, e.g. the 25 minutes between the replay and the session's death.
    assert!(svg.contains("— 25m —"));
}

#[test]
fn the_trace_alone_is_enough_to_mark_harm() {
    for (name, harm) in [
        ("behavior_a.ron", "lost"),
        ("behavior_b.ron", "cursor-reuse"),
        ("replay_404_cascade.ron", "dead-session"),
    ] {
        let (_, text) = run(name, ClientModel::Naive);
        let svg = render(diagram_of_trace(&text, name).unwrap(), Format::Svg);
        check_renders(&svg);
        assert!(
            rows(&svg)
                .iter()
                .any(|(a, _)| attr(a, "data-harm") == Some(harm)),
            "{name}: {harm}"
        );
        assert!(svg.contains("not computed"));
    }
}

#[test]
fn guarded_runs_show_no_loss() {
    for name in ["behavior_a.ron", "behavior_b.ron", "replay_404_cascade.ron"] {
        let (outcome, text) = run(name, ClientModel::Guarded);
        let svg = svg_of(&outcome, &text, Format::Svg);
        check_renders(&svg);
        assert!(
            !rows(&svg).iter().any(|(a, _)| matches!(
                attr(a, "data-harm"),
                Some("lost" | "cursor-reuse" | "never-delivered" | "collision" | "retry")
            )),
            "{name}"
        );
        assert!(svg.contains(r#"data-kind="detected""#), "{name}");
    }
}

#[test]
fn html_is_one_self_contained_page_with_the_same_picture() {
    let (outcome, text) = run("replay_404_cascade.ron", ClientModel::Naive);
    let html = svg_of(&outcome, &text, Format::Html);
    let svg = svg_of(&outcome, &text, Format::Svg);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(svg.trim_end()), "the same SVG, inline");
    for remote in ["http://", "https://", "src=", "@import", "url(http"] {
        let outside_svg_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!outside_svg_ns.contains(remote), "{remote}");
    }
    assert!(html.contains("<script>") && html.contains("<style>"));
    assert!(html.contains("href=\"#row-"), "jump links to the harm");
}

/// A big run (5,000 events on two interleaved streams, drops, a restart) folds to a few rows.
#[test]
fn a_five_thousand_event_run_stays_readable() {
    let ron = r#"Scenario(
        name: "big",
        summary: "two busy streams",
        seed: 3,
        server: ( event_log_ttl: Some("30s"), id_scheme: PerStream, unknown_cursor: FreshStream ),
        client: ( model: Naive, standalone_stream: true ),
        workload: [
            CallTool(at: "0s", tool: LongJob(steps: 4000, interval: "500ms")),
            Notify(from: "250ms", every: "500ms", count: 4000),
        ],
        faults: [
            Drop(when: At("10m"), mode: Reset, away: Some("1m")),
            Drop(when: At("20m"), mode: Reset, away: Some("40s")),
        ],
    )"#;
    let s = Scenario::parse(ron, "big.ron").unwrap();
    let outcome = faultline_sim::run(&s, s.seed, ClientModel::Naive);
    let events = outcome
        .result
        .trace
        .iter()
        .filter(|e| matches!(e.what, faultline_sim::TraceWhat::Event { .. }))
        .count();
    assert!(events >= 5000, "{events} events");
    let text = outcome.trace_jsonl();
    let svg = svg_of(&outcome, &text, Format::Svg);
    check_renders(&svg);
    let n = rows(&svg).len();
    assert!(n < 120, "{n} rows for {events} events");
    assert!(svg.len() < 400_000, "{} bytes", svg.len());
}

/// Even a trace that defeats folding (every event between two requests) is cut to size.
#[test]
fn an_unfoldable_trace_is_elided_to_a_bounded_number_of_rows() {
    let mut text = String::new();
    for i in 0..5000u64 {
        text.push_str(&format!(
            r#"{{"at_ms":{},"what":"request","conn":{},"task":"main","http":"POST","rpc":"ping","session":"s","last_event_id":null,"deferred":false}}"#,
            i * 10,
            i + 1
        ));
        text.push('\n');
        text.push_str(&format!(
            r#"{{"at_ms":{},"what":"event","conn":1,"id":{},"stream":0,"session":0,"generation":1,"payload":{{"type":"notification","seq":{i}}},"replay":false,"fate":"{}"}}"#,
            i * 10 + 5,
            i + 1,
            if i == 4000 { "skipped_as_seen" } else { "applied" }
        ));
        text.push('\n');
    }
    let svg = render(diagram_of_trace(&text, "unfoldable").unwrap(), Format::Svg);
    check_renders(&svg);
    let rows = rows(&svg);
    assert!(rows.len() <= MAX_ROWS + MAX_ROWS / 2, "{} rows", rows.len());
    assert!(svg.contains("rows folded"));
    // The one harmful event survives the elision.
    assert!(
        rows.iter()
            .any(|(a, _)| attr(a, "data-harm") == Some("lost")
                && attr(a, "data-ids") == Some("4001"))
    );
}

#[test]
fn hostile_text_is_escaped() {
    let text = concat!(
        r#"{"at_ms":0,"what":"fault","fault":"<script>alert('x')</script> & \"quotes\" \u0001"}"#,
        "\n",
        r#"{"at_ms":1,"what":"request","conn":1,"task":"main","http":"POST","rpc":"a<b>&c","session":"]]><x/>","last_event_id":"\"'><","deferred":false}"#,
        "\n",
    );
    for format in [Format::Svg, Format::Html] {
        let out = render(diagram_of_trace(text, "<title>&</title>").unwrap(), format);
        assert!(!out.contains("<script>alert"), "script injected");
        assert!(!out.contains("<x/>"));
        if format == Format::Svg {
            check_renders(&out);
            assert!(out.contains("&lt;script&gt;"));
        }
    }
}

#[test]
fn a_malformed_line_is_reported_by_number() {
    let (_, text) = run("behavior_a.ron", ClientModel::Naive);
    let mut lines: Vec<&str> = text.lines().collect();
    lines[6] = r#"{"at_ms": 5, "what": "teleport"}"#;
    let err: TraceError = read_trace(&lines.join("\n")).unwrap_err();
    assert_eq!(err.line, 7);
    assert!(err.to_string().starts_with("line 7: "), "{err}");
    assert_eq!(read_trace("").unwrap_err().line, 0);
    assert_eq!(read_trace("not json").unwrap_err().line, 1);
    let backwards = format!(
        "{}\n{}",
        r#"{"at_ms":5,"what":"fault","fault":"a"}"#, r#"{"at_ms":4,"what":"fault","fault":"b"}"#
    );
    assert_eq!(read_trace(&backwards).unwrap_err().line, 2);
    // Ranges used above agree with the oracle's spelling.
    assert_eq!(IdRanges::from_sorted([1, 2, 3, 5]).to_string(), "1..=3, 5");
}

/// The event runs of a diagram: (conn, ids, count) of every event arrow, in order.
fn diagram_runs(outcome: &RunOutcome) -> Vec<(u64, String, u32)> {
    let d = diagram_of_trace(&outcome.trace_jsonl(), "runs").unwrap();
    d.rows
        .iter()
        .filter_map(|r| match r.shape {
            faultline_teach::Shape::Arrow {
                kind: faultline_teach::ArrowKind::Event,
                count,
                ..
            } => {
                let data = |k: &str| r.data.iter().find(|(n, _)| *n == k).unwrap().1.clone();
                Some((data("conn").parse().unwrap(), data("ids"), count))
            }
            _ => None,
        })
        .collect()
}

/// The event runs of the text report: (conn, ids, count) of every `=> conn` line, in order.
fn report_runs(outcome: &RunOutcome, scenario: &Scenario) -> Vec<(u64, String, u32)> {
    let check = faultline_sim::check_expectation(scenario, outcome);
    let text = faultline_sim::text_report(outcome, "", &check, "");
    text.lines()
        .filter_map(|l| l.split_once("=> conn ").map(|(_, rest)| rest))
        .map(|rest| {
            // "3: ids 1..=3, 9 notification x4, stream #0 ..." or "4: id 7 progress, ..."
            let (conn, rest) = rest.split_once(": ").unwrap();
            let rest = rest
                .strip_prefix("ids ")
                .or_else(|| rest.strip_prefix("id "))
                .or_else(|| rest.strip_prefix("no id"))
                .unwrap();
            let ids: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || ".=, ".contains(*c))
                .collect();
            let what = rest.split(", stream #").next().unwrap();
            let count = what
                .rsplit_once(" x")
                .and_then(|(_, n)| n.split(' ').next()?.parse().ok())
                .unwrap_or(1);
            (
                conn.parse().unwrap(),
                ids.trim_end_matches([',', ' ']).to_string(),
                count,
            )
        })
        .collect()
}

/// One folding (`faultline_sim::fold_trace`) for both: every run of alike events is one
/// report line exactly when it is one diagram band, with the same ids and count. The
/// two-stream run is the case the report used to fold differently (it only merged
/// consecutive events, so interleaved streams alternated line by line).
#[test]
fn the_report_and_the_diagram_fold_the_same_runs() {
    let two_streams = Scenario::parse(
        r#"Scenario(
            name: "two_streams",
            summary: "progress and notifications interleaved",
            seed: 5,
            server: ( event_log_ttl: Some("30s"), id_scheme: PerStream, unknown_cursor: FreshStream ),
            client: ( model: Naive, standalone_stream: true ),
            workload: [
                CallTool(at: "0s", tool: LongJob(steps: 300, interval: "500ms")),
                Notify(from: "250ms", every: "500ms", count: 300),
            ],
            faults: [ Drop(when: At("1m"), mode: Reset, away: Some("40s")) ],
        )"#,
        "two_streams.ron",
    )
    .unwrap();
    let mut cases = vec![two_streams];
    for name in ["behavior_a.ron", "behavior_b.ron", "replay_404_cascade.ron"] {
        cases.push(scenario(name));
    }
    for s in &cases {
        for client in [ClientModel::Naive, ClientModel::Guarded] {
            let outcome = faultline_sim::run(s, s.seed, client);
            let report = report_runs(&outcome, s);
            let diagram = diagram_runs(&outcome);
            assert!(!report.is_empty(), "{} {client:?}", s.name);
            assert_eq!(report, diagram, "{} {client:?}", s.name);
        }
    }
    // The interleaved streams are one run each between two other entries, not hundreds.
    let outcome = faultline_sim::run(&cases[0], 5, ClientModel::Naive);
    assert!(report_runs(&outcome, &cases[0]).len() < 20);
}

/// A trace file as `faultline run --trace` writes it (header first) draws the same picture
/// as its entries alone, and a line going back in time is named by its number in the file.
#[test]
fn a_trace_file_with_its_header_draws_the_same_picture() {
    let (outcome, entries) = run("behavior_b.ron", ClientModel::Naive);
    let file = outcome.trace_file(Some("scenarios/behavior_b.ron"));
    assert!(file.starts_with(r#"{"header":{"scenario":"behavior_b","#));
    let trace = read_trace(&file).unwrap();
    assert_eq!(trace.header.unwrap().seed, outcome.seed);
    assert_eq!(
        diagram_of_trace(&file, "t").unwrap(),
        diagram_of_trace(&entries, "t").unwrap()
    );
    let header = file.lines().next().unwrap();
    let backwards = format!(
        "{header}\n{}\n{}",
        r#"{"at_ms":5,"what":"fault","fault":"a"}"#, r#"{"at_ms":4,"what":"fault","fault":"b"}"#
    );
    assert_eq!(read_trace(&backwards).unwrap_err().line, 3);
    assert_eq!(read_trace(header).unwrap_err().line, 0, "a header alone");
}

#[test]
fn a_fleet_draws_a_lane_per_replica_and_the_balancers_choice_on_each_request() {
    let (outcome, text) = run("field/replicas_round_robin.ron", ClientModel::Naive);
    let svg = svg_of(&outcome, &text, Format::Svg);
    check_renders(&svg);
    let lanes = lanes(&svg);
    for lane in ["load balancer", "replica r0", "replica r1", "replica r2"] {
        assert!(lanes.iter().any(|l| l == lane), "lane {lane} in {lanes:?}");
    }
    assert!(!lanes.iter().any(|l| l == "HTTP server"), "{lanes:?}");
    // Every request row names the replica and the reason, as the ledger recorded them.
    let answers: Vec<_> = outcome
        .result
        .ledger
        .answers
        .iter()
        .map(|a| a.route.expect("a fleet routes every answer"))
        .collect();
    let requests: Vec<_> = rows(&svg)
        .into_iter()
        .filter(|(a, _)| attr(a, "data-replica").is_some())
        .collect();
    assert_eq!(requests.len(), answers.len(), "one routed row per answer");
    for ((attrs, label), route) in requests.iter().zip(&answers) {
        assert_eq!(
            attr(attrs, "data-replica"),
            Some(route.replica.to_string().as_str())
        );
        assert_eq!(attr(attrs, "data-route"), Some(route.why.label()));
        assert!(
            label.contains(&format!("{} by round robin", route.replica)),
            "{label}"
        );
    }
    // Round robin scatters one client's requests over the replicas.
    let replicas: std::collections::BTreeSet<_> = answers.iter().map(|r| r.replica).collect();
    assert_eq!(replicas.len(), 3, "{replicas:?}");
}

#[test]
fn a_single_server_keeps_one_server_lane_and_unrouted_requests() {
    let (outcome, text) = run("replay_404_cascade.ron", ClientModel::Naive);
    let svg = svg_of(&outcome, &text, Format::Svg);
    let lanes = lanes(&svg);
    assert!(lanes.iter().any(|l| l == "HTTP server"), "{lanes:?}");
    assert!(
        !lanes
            .iter()
            .any(|l| l.starts_with("replica") || l == "load balancer")
    );
    assert!(
        !text.contains("\"route\""),
        "a single server's trace has no routes"
    );
}
