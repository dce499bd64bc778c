//! The failure-mode map: loss rates over the knob space, as a text table and an SVG
//! heatmap (rows: id scheme; columns: event-log TTL divided by session TTL).
//!
//! The point is to see at a glance where a client loses data: for the naive client the
//! per-stream and per-generation rows light up; for the guarded client the map is blank.
//! Seeds behind a fleet are also counted by balancer and stores (session store x event
//! store), in a second table.

use std::fmt::Write;

use crate::explore::{Aggregate, FLEET_COLS, FLEET_ROWS, MAP_COLS, MAP_ROWS};

fn rate(loss: u64, seeds: u64) -> Option<f64> {
    (seeds > 0).then(|| loss as f64 / seeds as f64)
}

/// A fixed-width table: each cell is "loss% (seeds)".
pub fn text(agg: &Aggregate) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "failure-mode map, client {}: share of seeds with a loss verdict (seeds in the cell)",
        agg.client.name()
    );
    let _ = write!(out, "{:<18}", "id scheme \\ log/session TTL");
    out.push('\n');
    let _ = write!(out, "{:<18}", "");
    for col in MAP_COLS {
        let _ = write!(out, "{col:>20}");
    }
    out.push('\n');
    for (r, row) in MAP_ROWS.iter().enumerate() {
        let _ = write!(out, "{row:<18}");
        for cell in &agg.map[r] {
            let text = match rate(cell.loss, cell.seeds) {
                Some(x) => format!("{:.1}% ({})", x * 100.0, cell.seeds),
                None => "-".to_string(),
            };
            let _ = write!(out, "{text:>20}");
        }
        out.push('\n');
    }
    if !agg.fleet_map.is_empty() {
        out.push_str(&fleet_text(agg));
    }
    out
}

/// The seeds behind a fleet, by balancer (rows) and stores (columns): "loss% (seeds)".
pub fn fleet_text(agg: &Aggregate) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nfleets, client {}: share of seeds with a loss verdict by balancer and stores (seeds in the cell)",
        agg.client.name()
    );
    for (c, col) in FLEET_COLS.iter().enumerate() {
        let _ = writeln!(out, "  [{}] {col}", c + 1);
    }
    let _ = write!(out, "{:<18}", "balancer");
    for c in 0..FLEET_COLS.len() {
        let _ = write!(out, "{:>14}", format!("[{}]", c + 1));
    }
    out.push('\n');
    for row in FLEET_ROWS {
        let _ = write!(out, "{row:<18}");
        for col in FLEET_COLS {
            let cell = agg.fleet_map.get(row).and_then(|r| r.get(col));
            let text = match cell.and_then(|c| rate(c.loss, c.seeds).map(|x| (x, c.seeds))) {
                Some((x, seeds)) => format!("{:.1}% ({seeds})", x * 100.0),
                None => "-".to_string(),
            };
            let _ = write!(out, "{text:>14}");
        }
        out.push('\n');
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// White (no loss) to red (every seed loses); grey where no seed fell.
fn color(rate: Option<f64>) -> String {
    match rate {
        None => "#e5e5e5".to_string(),
        Some(x) => {
            let g = (255.0 * (1.0 - x).clamp(0.0, 1.0)) as u8;
            format!("#ff{g:02x}{g:02x}")
        }
    }
}

/// A self-contained SVG heatmap.
pub fn svg(agg: &Aggregate) -> String {
    let (left, top, cw, ch) = (150, 70, 120, 48);
    let width = left + cw * MAP_COLS.len() + 20;
    let height = top + ch * MAP_ROWS.len() + 60;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(&format!(
            "Where the {} client loses data ({} seeds)",
            agg.client.name(),
            agg.seeds_run
        ))
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="42">share of seeds with a loss verdict; columns: event-log TTL / session TTL</text>"#
    );
    for (c, col) in MAP_COLS.iter().enumerate() {
        let x = left + c * cw + cw / 2;
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            top - 8,
            escape(col)
        );
    }
    for (r, row) in MAP_ROWS.iter().enumerate() {
        let y = top + r * ch;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{row}</text>"#,
            left - 8,
            y + ch / 2 + 4
        );
        for (c, cell) in agg.map[r].iter().enumerate() {
            let x = left + c * cw;
            let rate = rate(cell.loss, cell.seeds);
            let kinds: Vec<String> = cell
                .kinds
                .iter()
                .filter(|(k, _)| k.is_loss())
                .map(|(k, n)| format!("{k}: {n}"))
                .collect();
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{}" stroke="#999"><title>{}</title></rect>"##,
                color(rate),
                escape(&format!(
                    "{row}, {}: {} of {} seeds lose data. {}",
                    MAP_COLS[c],
                    cell.loss,
                    cell.seeds,
                    kinds.join(", ")
                ))
            );
            let label = rate.map_or("-".to_string(), |x| format!("{:.0}%", x * 100.0));
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">{label}</text>"#,
                x + cw / 2,
                y + ch / 2 + 4
            );
        }
    }
    let _ = writeln!(s, "</svg>");
    s
}
