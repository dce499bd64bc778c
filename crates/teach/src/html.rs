//! The diagram as one self-contained HTML page: the same SVG inline, plus a tooltip.
//!
//! Nothing is fetched: no fonts, no scripts, no stylesheets from the network, so the file
//! can be attached to an incident ticket and opened anywhere. A few lines of script turn
//! each row's `<title>` into a tooltip that follows the pointer (and stays put on click),
//! and a list of harmful rows at the top jumps straight to the moment of harm.

use faultline_sim::vtime;

use crate::diagram::Diagram;
use crate::svg::to_svg;
use crate::xml::escape;

const STYLE: &str = r#"
body { margin: 0; background: #fafafa; color: #212121;
       font: 13px/1.45 "DejaVu Sans", Helvetica, Arial, sans-serif; }
header { padding: 10px 16px; background: #fff; border-bottom: 1px solid #ddd; }
header h1 { font-size: 16px; margin: 0 0 4px 0; }
header p { margin: 2px 0; color: #555; }
#harms a { color: #c62828; margin-right: 14px; text-decoration: none;
           font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
#harms a:hover { text-decoration: underline; }
main { padding: 12px 16px; }
main svg { max-width: 100%; height: auto; }
svg .row:hover rect.bg { fill: #e3f2fd; fill-opacity: 1; }
svg .row.pinned rect.bg { fill: #bbdefb; fill-opacity: 1; }
#tip { position: fixed; display: none; max-width: 560px; padding: 8px 10px;
       background: #263238; color: #fff; border-radius: 4px; pointer-events: none;
       font: 12px/1.4 "DejaVu Sans Mono", monospace; white-space: pre-wrap; z-index: 10;
       box-shadow: 0 2px 8px rgba(0,0,0,.3); }
"#;

const SCRIPT: &str = r#"
(function () {
  var tip = document.getElementById('tip');
  var pinned = null;
  var rows = document.querySelectorAll('svg .row');
  rows.forEach(function (g) {
    var t = g.querySelector('title');
    if (t) { g.setAttribute('data-detail', t.textContent); t.remove(); }
  });
  function show(g, ev) {
    tip.textContent = g.getAttribute('data-detail') || '';
    tip.style.display = 'block';
    var x = ev.clientX + 16, y = ev.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) { x = Math.max(8, ev.clientX - w - 16); }
    if (y + h > window.innerHeight - 8) { y = Math.max(8, ev.clientY - h - 14); }
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  document.addEventListener('mousemove', function (ev) {
    if (pinned) { return; }
    var g = ev.target.closest && ev.target.closest('svg .row');
    if (g) { show(g, ev); } else { tip.style.display = 'none'; }
  });
  document.addEventListener('click', function (ev) {
    var g = ev.target.closest && ev.target.closest('svg .row');
    if (pinned) { pinned.classList.remove('pinned'); }
    pinned = (g && g !== pinned) ? g : null;
    if (pinned) { pinned.classList.add('pinned'); show(pinned, ev); }
    else { tip.style.display = 'none'; }
  });
})();
"#;

/// Renders the diagram as a self-contained HTML page.
pub fn to_html(diagram: &Diagram) -> String {
    let svg = to_svg(diagram);
    // The first row of each kind of harm, with how many rows show it.
    let mut firsts: Vec<(crate::diagram::Harm, usize, usize)> = Vec::new();
    for (i, row) in diagram.rows.iter().enumerate() {
        if let Some(h) = row.harm {
            match firsts.iter_mut().find(|(k, _, _)| *k == h) {
                Some((_, _, n)) => *n += 1,
                None => firsts.push((h, i, 1)),
            }
        }
    }
    let mut harms = String::new();
    for (h, i, n) in &firsts {
        let row = &diagram.rows[*i];
        harms.push_str(&format!(
            r##"<a href="#{}-{i}" title="{}">{} {}{}</a>"##,
            escape(&diagram.anchor),
            escape(&row.label),
            escape(&vtime(row.at_ms)),
            escape(h.badge()),
            if *n > 1 {
                format!(" (and {} more)", n - 1)
            } else {
                String::new()
            }
        ));
    }
    let verdicts = if diagram.verdicts.is_empty() {
        "verdicts not computed (drawn from the trace alone)".to_string()
    } else {
        diagram
            .verdicts
            .iter()
            .map(|v| v.kind.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let header = format!(
        r#"<h1>{title}</h1>
<p>{subtitle}</p>
<p>verdicts: <b>{verdicts}</b>. Hover an arrow for details; click to pin.</p>
<p id="harms">{harms_label}{harms}</p>"#,
        title = escape(&diagram.title),
        subtitle = escape(&diagram.subtitle),
        verdicts = escape(&verdicts),
        harms_label = if harms.is_empty() {
            "no harm visible in the trace"
        } else {
            "moment of harm: "
        },
    );
    page(&diagram.title, &header, &svg, "")
}

/// One self-contained page around diagrams: `header_html` and `main_html` are inserted as
/// they are (escape what they quote), `extra_style` is appended to the stylesheet. Every
/// inline diagram in `main_html` gets the hover tooltip.
pub fn page(title: &str, header_html: &str, main_html: &str, extra_style: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{STYLE}{extra_style}</style>
</head>
<body>
<header>
{header_html}
</header>
<main>
{main_html}</main>
<div id="tip"></div>
<script>{SCRIPT}</script>
</body>
</html>
"#,
        title = escape(title),
    )
}
