//! Laying a [`Diagram`] out as SVG.
//!
//! One row per line of the story, top to bottom, with the virtual time in the left column
//! and idle spans drawn as labelled breaks (see `time_axis`). Text is monospace so its
//! width is known without a font engine, which keeps labels inside the picture in any
//! renderer. Every row is a `<g class="row">` with a `<title>` (hover text in browsers and
//! most viewers) and `data-*` attributes (ids, stream, status, harm) for tools and tests.
//! All text goes through [`xml::escape`].

use std::fmt::Write as _;

use faultline_sim::{Task, vtime};

use crate::diagram::{ArrowKind, Diagram, Harm, Lane, Row, Shape, Tone};
use crate::time_axis::{idle_gap, idle_span};
use crate::xml::{escape, truncate, wrap};

const CHAR_W: f64 = 6.7;
const LINE_H: f64 = 14.0;
const TIME_W: f64 = 128.0;
const BADGE_W: f64 = 180.0;
const HEADER_Y: f64 = 84.0;
const ROWS_Y: f64 = 124.0;
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, Liberation Mono, monospace";

const RED: &str = "#c62828";
const ORANGE: &str = "#e65100";
const GREEN: &str = "#2e7d32";
const TEAL: &str = "#00796b";
const BLUE: &str = "#1f4e9c";
const GREY: &str = "#757575";

struct Geometry {
    lanes: Vec<(Lane, f64)>,
    width: f64,
}

impl Geometry {
    fn new(lanes: &[Lane]) -> Geometry {
        let mut x = TIME_W + 70.0;
        let mut out = Vec::new();
        let mut prev: Option<Lane> = None;
        for lane in lanes {
            if let Some(p) = prev {
                x += match (p, lane) {
                    (Lane::Task(_), Lane::Task(_)) => 122.0,
                    (Lane::Task(_) | Lane::Client, _) => 135.0,
                    (Lane::Network, _) => 140.0,
                    (Lane::Balancer, _) => 130.0,
                    (Lane::Replica(_), Lane::Replica(_)) => 120.0,
                    (Lane::Server | Lane::Replica(_), _) => 160.0,
                    _ => 230.0,
                };
            }
            out.push((*lane, x));
            prev = Some(*lane);
        }
        Geometry {
            lanes: out,
            width: (x + 200.0 + BADGE_W).round(),
        }
    }

    fn x(&self, lane: Lane) -> f64 {
        self.try_x(lane).unwrap_or(TIME_W + 70.0)
    }

    /// Where the lane is, when the diagram has it.
    fn try_x(&self, lane: Lane) -> Option<f64> {
        self.lanes.iter().find(|(l, _)| *l == lane).map(|(_, x)| *x)
    }

    /// Characters that fit between `x` and the badge column.
    fn chars_from(&self, x: f64) -> usize {
        (((self.width - BADGE_W - x - 8.0) / CHAR_W).floor() as usize).max(12)
    }
}

/// One laid-out row: its top, its height and its wrapped text.
struct Placed<'a> {
    row: &'a Row,
    top: f64,
    height: f64,
    lines: Vec<String>,
    /// For `State`: store and log lines.
    extra: Vec<String>,
    /// An idle break drawn above this row.
    gap_before: Option<u64>,
}

const BREAK_H: f64 = 26.0;

fn place<'a>(diagram: &'a Diagram, geo: &Geometry) -> (Vec<Placed<'a>>, f64) {
    let mut y = ROWS_Y;
    let mut out: Vec<Placed> = Vec::with_capacity(diagram.rows.len());
    let mut prev: Option<&Row> = None;
    for row in &diagram.rows {
        let gap_before = prev.and_then(|p| idle_gap(p, row));
        if gap_before.is_some() {
            y += BREAK_H;
        }
        let (lines, extra, height) = match &row.shape {
            Shape::Arrow { from, to, .. } => {
                let left = geo.x(*from).min(geo.x(*to));
                let lines = wrap(&row.label, geo.chars_from(left + 8.0), 2);
                let h = LINE_H * lines.len() as f64 + 16.0;
                (lines, Vec::new(), h)
            }
            Shape::Note { lane, .. } => {
                let lines = wrap(&row.label, geo.chars_from(geo.x(*lane) + 10.0), 3);
                let h = LINE_H * lines.len() as f64 + 12.0;
                (lines, Vec::new(), h)
            }
            Shape::State { store, log } => {
                let store_x = geo.x(Lane::Store);
                let log_x = geo.x(Lane::Log);
                let store_chars = (((log_x - store_x - 20.0) / CHAR_W) as usize).max(12);
                let s = wrap(&format!("store: {store}"), store_chars, 3);
                let l = wrap(&format!("log: {log}"), geo.chars_from(log_x + 10.0), 3);
                let h = LINE_H * s.len().max(l.len()) as f64 + 12.0;
                (s, l, h)
            }
            Shape::Elided { .. } => (
                vec![truncate(&row.label, geo.chars_from(TIME_W + 10.0))],
                Vec::new(),
                26.0,
            ),
        };
        let badge_lines = usize::from(row.harm.is_some()) + usize::from(!row.verdicts.is_empty());
        let height = height.max(LINE_H * badge_lines as f64 + 8.0);
        out.push(Placed {
            row,
            top: y,
            height,
            lines,
            extra,
            gap_before,
        });
        y += height;
        prev = Some(row);
    }
    (out, y)
}

fn harm_colour(h: Harm) -> &'static str {
    if h.is_loss() { RED } else { ORANGE }
}

fn tone_colours(t: Tone) -> (&'static str, &'static str) {
    match t {
        Tone::Fault => ("#fff6bf", "#a68a00"),
        Tone::Neutral => ("#f0f0f0", "#9e9e9e"),
        Tone::Death => ("#f8dede", "#8e2424"),
        Tone::Error => ("#fde3cf", ORANGE),
        Tone::Guard => ("#e2f3e0", GREEN),
    }
}

fn lane_colour(lane: Lane) -> &'static str {
    match lane {
        Lane::Task(Task::Main) | Lane::Client => BLUE,
        Lane::Task(Task::Probe) => GREEN,
        Lane::Task(Task::Stale(_)) => "#6a1b9a",
        Lane::Network => "#8d6e63",
        Lane::Server | Lane::Replica(_) => "#37474f",
        Lane::Balancer => "#8d6e63",
        Lane::Store => "#5d4037",
        Lane::Log => TEAL,
    }
}

/// Renders the diagram as a standalone SVG document.
pub fn to_svg(diagram: &Diagram) -> String {
    let geo = Geometry::new(&diagram.lanes);
    let (placed, rows_end) = place(diagram, &geo);
    let verdict_lines: Vec<(String, Vec<String>)> = diagram
        .verdicts
        .iter()
        .map(|v| {
            let head = format!("{} at {}", v.kind, vtime(v.at_ms));
            (
                head,
                wrap(&v.summary, ((geo.width - 60.0) / CHAR_W) as usize, 4),
            )
        })
        .collect();
    let legend_top = rows_end + 44.0;
    let legend_h = 30.0
        + verdict_lines
            .iter()
            .map(|(_, l)| LINE_H * (l.len() as f64 + 1.0) + 6.0)
            .sum::<f64>()
            .max(LINE_H * 2.0);
    let height = (legend_top + legend_h + 10.0).round();
    let width = geo.width;

    let mut s = String::with_capacity(4096 + diagram.rows.len() * 900);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="11" class="faultline-diagram">"#
    );
    let _ = write!(s, "<title>{}</title>", escape(&diagram.title));
    defs(&mut s);
    let _ = write!(
        s,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    // Title, subtitle, key.
    let _ = write!(
        s,
        r##"<text x="12" y="24" font-size="15" font-weight="bold" fill="#212121">{}</text>"##,
        escape(&truncate(&diagram.title, (width / 9.0) as usize))
    );
    let _ = write!(
        s,
        r##"<text x="12" y="42" fill="{GREY}">{}</text>"##,
        escape(&diagram.subtitle)
    );
    key(&mut s);
    // Lanes.
    for (lane, x) in &geo.lanes {
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{rows_end}" stroke="{}" stroke-opacity="0.35" stroke-width="1.5"/>"##,
            HEADER_Y + 24.0,
            lane_colour(*lane)
        );
    }
    lane_heads(&mut s, &geo, HEADER_Y);
    lane_heads(&mut s, &geo, rows_end + 8.0);
    // Rows.
    let mut last_time: Option<u64> = None;
    for (i, p) in placed.iter().enumerate() {
        if let Some(gap) = p.gap_before {
            idle_break(&mut s, width, p.top - BREAK_H, gap);
            last_time = None;
        }
        row(&mut s, &geo, &diagram.anchor, i, p, &mut last_time);
    }
    verdict_legend(&mut s, legend_top, &verdict_lines, width);
    s.push_str("</svg>\n");
    s
}

fn defs(s: &mut String) {
    s.push_str("<defs>");
    for (name, colour) in [
        ("req", BLUE),
        ("resp", GREY),
        ("ev", GREEN),
        ("replay", TEAL),
        ("loss", RED),
        ("warn", ORANGE),
        ("grey", "#9e9e9e"),
    ] {
        let _ = write!(
            s,
            r#"<marker id="ah-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>"#
        );
    }
    s.push_str("</defs>");
}

fn key(s: &mut String) {
    let y = 62.0;
    let items: [(&str, &str, bool, f64); 5] = [
        ("request", BLUE, false, 1.5),
        ("response", GREY, true, 1.2),
        ("SSE events (thick: a folded run)", GREEN, false, 5.0),
        ("replayed from the log", TEAL, false, 5.0),
        ("harm", RED, false, 1.5),
    ];
    let mut x = 12.0;
    for (label, colour, dashed, w) in items {
        let dash = if dashed {
            r#" stroke-dasharray="5 3""#
        } else {
            ""
        };
        let _ = write!(
            s,
            r#"<line x1="{x}" y1="{}" x2="{}" y2="{}" stroke="{colour}" stroke-width="{w}"{dash}/>"#,
            y - 4.0,
            x + 28.0,
            y - 4.0
        );
        let _ = write!(
            s,
            r##"<text x="{}" y="{y}" fill="#424242">{}</text>"##,
            x + 34.0,
            escape(label)
        );
        x += 34.0 + label.len() as f64 * CHAR_W + 22.0;
    }
    let _ = write!(
        s,
        r##"<text x="{x}" y="{y}" fill="{GREY}">— 25m —: idle time left out</text>"##
    );
}

fn lane_heads(s: &mut String, geo: &Geometry, y: f64) {
    for (lane, x) in &geo.lanes {
        let title = lane.title();
        let w = title.len() as f64 * CHAR_W + 16.0;
        let colour = lane_colour(*lane);
        let _ = write!(
            s,
            r##"<g class="lane" data-lane="{}"><rect x="{}" y="{y}" width="{w}" height="22" rx="4" fill="#fafafa" stroke="{colour}"/><text x="{x}" y="{}" text-anchor="middle" font-weight="bold" fill="{colour}">{}</text></g>"##,
            escape(&title),
            x - w / 2.0,
            y + 15.0,
            escape(&title)
        );
    }
}

fn idle_break(s: &mut String, width: f64, top: f64, gap: u64) {
    let mid = top + BREAK_H / 2.0;
    let words = format!("— {} —", idle_span(gap));
    let _ = write!(
        s,
        r##"<g class="idle" data-idle-ms="{gap}"><rect x="0" y="{}" width="{width}" height="{}" fill="#f2f2f2" fill-opacity="0.92"/><line x1="0" y1="{}" x2="{width}" y2="{}" stroke="#bdbdbd" stroke-dasharray="2 4"/><line x1="0" y1="{}" x2="{width}" y2="{}" stroke="#bdbdbd" stroke-dasharray="2 4"/><text x="{}" y="{}" text-anchor="middle" font-style="italic" fill="#616161">{}</text><text x="{}" y="{}" text-anchor="middle" font-style="italic" fill="#616161">{}</text></g>"##,
        top + 2.0,
        BREAK_H - 4.0,
        top + 2.0,
        top + 2.0,
        top + BREAK_H - 2.0,
        top + BREAK_H - 2.0,
        TIME_W / 2.0,
        mid + 4.0,
        escape(&words),
        width / 2.0,
        mid + 4.0,
        escape(&words)
    );
}

fn row(
    s: &mut String,
    geo: &Geometry,
    anchor: &str,
    index: usize,
    p: &Placed,
    last_time: &mut Option<u64>,
) {
    let r = p.row;
    let width = geo.width;
    let mut attrs = format!(r#" id="{anchor}-{index}" data-at-ms="{}""#, r.at_ms);
    let class = match r.harm {
        Some(h) => {
            let _ = write!(attrs, r#" data-harm="{}""#, h.name());
            format!("row harm harm-{}", h.name())
        }
        None => "row".to_string(),
    };
    if !r.verdicts.is_empty() {
        let _ = write!(
            attrs,
            r#" data-verdicts="{}""#,
            escape(&r.verdicts.join(" "))
        );
    }
    for (k, v) in &r.data {
        let _ = write!(attrs, r#" data-{k}="{}""#, escape(v));
    }
    let _ = write!(s, r#"<g class="{class}"{attrs}>"#);
    let title = if r.detail.is_empty() {
        &r.label
    } else {
        &r.detail
    };
    let _ = write!(s, "<title>{}</title>", escape(title));
    // Background (also the hover target).
    let (bg, bg_opacity) = match r.harm {
        Some(h) if h.is_loss() => ("#fdecea", "1"),
        Some(_) => ("#fff3e0", "1"),
        None => ("#ffffff", "0"),
    };
    let _ = write!(
        s,
        r#"<rect class="bg" x="0" y="{}" width="{width}" height="{}" fill="{bg}" fill-opacity="{bg_opacity}"/>"#,
        p.top, p.height
    );
    // Time column.
    let first_baseline = p.top + LINE_H;
    if *last_time != Some(r.at_ms) || r.harm.is_some() {
        let colour = match r.harm {
            Some(h) => harm_colour(h),
            None => "#424242",
        };
        let weight = if r.harm.is_some() { "bold" } else { "normal" };
        let _ = write!(
            s,
            r#"<text class="t" x="8" y="{first_baseline}" fill="{colour}" font-weight="{weight}">{}</text>"#,
            escape(&vtime(r.at_ms))
        );
    }
    if r.until_ms > r.at_ms {
        let _ = write!(
            s,
            r#"<text x="8" y="{}" fill="{GREY}" font-size="10">…{}</text>"#,
            first_baseline + LINE_H - 1.0,
            escape(&vtime(r.until_ms))
        );
    }
    *last_time = Some(r.until_ms.max(r.at_ms));
    // Badge: the harm on the first line, the verdicts pinned here on the second.
    let badge_chars = ((BADGE_W - 14.0) / CHAR_W) as usize;
    let mut badge: Vec<(String, &str)> = Vec::new();
    if let Some(h) = r.harm {
        badge.push((h.badge().to_string(), harm_colour(h)));
    }
    if !r.verdicts.is_empty() {
        let colour = r.harm.map_or(GREEN, harm_colour);
        badge.push((r.verdicts.join(" · "), colour));
    }
    for (i, (text, colour)) in badge.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text class="badge" x="{}" y="{}" text-anchor="end" font-weight="bold" fill="{colour}">{}</text>"#,
            width - 10.0,
            first_baseline + LINE_H * i as f64,
            escape(&truncate(text, badge_chars))
        );
    }
    match &r.shape {
        Shape::Arrow {
            from,
            to,
            kind,
            count,
            dashed,
        } => arrow(s, geo, p, *from, *to, *kind, *count, *dashed),
        Shape::Note { lane, tone } => note(s, geo, p, *lane, *tone),
        Shape::State { .. } => state(s, geo, p),
        Shape::Elided { .. } => {
            let _ = write!(
                s,
                r##"<text x="{}" y="{}" font-style="italic" fill="#616161">{}</text>"##,
                TIME_W + 10.0,
                p.top + 17.0,
                escape(p.lines.first().map_or("", |l| l.as_str()))
            );
        }
    }
    s.push_str("</g>");
}

#[allow(clippy::too_many_arguments)]
fn arrow(
    s: &mut String,
    geo: &Geometry,
    p: &Placed,
    from: Lane,
    to: Lane,
    kind: ArrowKind,
    count: u32,
    dashed: bool,
) {
    let r = p.row;
    let (x1, x2) = (geo.x(from), geo.x(to));
    let y = p.top + p.height - 8.0;
    let replayed = r.data.iter().any(|(k, v)| *k == "replay" && v == "true");
    let fate_pending = r
        .data
        .iter()
        .any(|(k, v)| *k == "fate" && (v == "Buffered" || v == "Primed"));
    let (colour, marker) = match (r.harm, kind) {
        (Some(h), _) if h.is_loss() => (RED, "loss"),
        (Some(_), _) => (ORANGE, "warn"),
        (None, ArrowKind::Request) => (BLUE, "req"),
        (None, ArrowKind::Response) => (GREY, "resp"),
        (None, ArrowKind::Event) if fate_pending => ("#9e9e9e", "grey"),
        (None, ArrowKind::Event) if replayed => (TEAL, "replay"),
        (None, ArrowKind::Event) => (GREEN, "ev"),
    };
    let dir = if x2 >= x1 { 1.0 } else { -1.0 };
    let (sx, ex) = (x1 + dir * 3.0, x2 - dir * 3.0);
    if count > 1 {
        let _ = write!(
            s,
            r#"<line x1="{sx}" y1="{y}" x2="{ex}" y2="{y}" stroke="{colour}" stroke-opacity="0.28" stroke-width="9" stroke-linecap="round"/>"#
        );
    }
    let dash = if dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    };
    let _ = write!(
        s,
        r#"<line class="arrow" x1="{sx}" y1="{y}" x2="{ex}" y2="{y}" stroke="{colour}" stroke-width="1.6"{dash} marker-end="url(#ah-{marker})"/>"#
    );
    if kind == ArrowKind::Request && from != Lane::Network {
        // A dot where the request crosses the network, and the balancer of a fleet.
        for crossed in [Lane::Network, Lane::Balancer] {
            let Some(cx) = geo.try_x(crossed) else {
                continue;
            };
            if (cx - x1) * (cx - x2) < 0.0 {
                let _ = write!(
                    s,
                    r##"<circle cx="{cx}" cy="{y}" r="2.5" fill="#8d6e63"/>"##
                );
            }
        }
    }
    let left = x1.min(x2) + 8.0;
    let weight = if r.harm.is_some() { "bold" } else { "normal" };
    let text_colour = match r.harm {
        Some(h) => harm_colour(h),
        None => "#212121",
    };
    for (i, line) in p.lines.iter().enumerate() {
        let _ = write!(
            s,
            r##"<text class="lbl" x="{left}" y="{}" fill="{text_colour}" font-weight="{weight}" stroke="#ffffff" stroke-width="3" stroke-opacity="0.85" paint-order="stroke">{}</text>"##,
            p.top + LINE_H * (i as f64 + 1.0),
            escape(line)
        );
    }
}

fn note(s: &mut String, geo: &Geometry, p: &Placed, lane: Lane, tone: Tone) {
    let (fill, stroke) = match p.row.harm {
        Some(h) => ("#fdecea", harm_colour(h)),
        None => tone_colours(tone),
    };
    let x = geo.x(lane);
    let longest = p.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let w = longest as f64 * CHAR_W + 14.0;
    let h = LINE_H * p.lines.len() as f64 + 6.0;
    let _ = write!(
        s,
        r#"<rect x="{}" y="{}" width="{w}" height="{h}" rx="3" fill="{fill}" stroke="{stroke}"/>"#,
        x - 4.0,
        p.top + 3.0
    );
    let bold = if matches!(tone, Tone::Fault | Tone::Guard | Tone::Error) || p.row.harm.is_some() {
        "bold"
    } else {
        "normal"
    };
    for (i, line) in p.lines.iter().enumerate() {
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" fill="#212121" font-weight="{bold}">{}</text>"##,
            x + 3.0,
            p.top + 3.0 + LINE_H * (i as f64 + 1.0) - 2.0,
            escape(line)
        );
    }
}

fn state(s: &mut String, geo: &Geometry, p: &Placed) {
    for (lines, lane) in [(&p.lines, Lane::Store), (&p.extra, Lane::Log)] {
        let x = geo.x(lane);
        for (i, line) in lines.iter().enumerate() {
            let _ = write!(
                s,
                r##"<text x="{}" y="{}" fill="#4e342e" font-size="10.5">{}</text>"##,
                x + 6.0,
                p.top + LINE_H * (i as f64 + 1.0),
                escape(line)
            );
        }
        let _ = write!(
            s,
            r##"<circle cx="{x}" cy="{}" r="3" fill="#8d6e63"/>"##,
            p.top + LINE_H - 4.0
        );
    }
}

fn verdict_legend(s: &mut String, top: f64, lines: &[(String, Vec<String>)], width: f64) {
    let _ = write!(
        s,
        r##"<g class="verdicts"><line x1="8" y1="{top}" x2="{}" y2="{top}" stroke="#bdbdbd"/><text x="12" y="{}" font-size="13" font-weight="bold" fill="#212121">verdicts</text>"##,
        width - 8.0,
        top + 20.0
    );
    let mut y = top + 20.0 + LINE_H + 4.0;
    if lines.is_empty() {
        let _ = write!(
            s,
            r#"<text x="12" y="{y}" fill="{GREY}">not computed: drawn from the trace alone (pass --scenario FILE to pin the oracle's verdicts)</text>"#
        );
    }
    for (head, body) in lines {
        let kind = head.split(' ').next().unwrap_or_default();
        let colour = match kind {
            "clean" | "detected" => GREEN,
            "zombie_session"
            | "retry_amplification"
            | "reinit_collision"
            | "surfaced_loss"
            | "misrouted_session" => ORANGE,
            _ => RED,
        };
        let _ = write!(
            s,
            r#"<text class="verdict" data-kind="{}" x="12" y="{y}" font-weight="bold" fill="{colour}">{}</text>"#,
            escape(kind),
            escape(head)
        );
        y += LINE_H;
        for l in body {
            let _ = write!(
                s,
                r##"<text x="28" y="{y}" fill="#424242">{}</text>"##,
                escape(l)
            );
            y += LINE_H;
        }
        y += 6.0;
    }
    s.push_str("</g>");
}
