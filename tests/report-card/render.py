#!/usr/bin/env python3
"""Render the client report card from the runs that run.sh left in OUT.

    render.py OUT MD_PATH HTML_PATH [README]

With README, the summary table between its `report-card:begin` and `report-card:end` markers
is rewritten too.

OUT/runs.tsv has one line per graded run, tab-separated:

    ID  ERA  LABEL  NOTE  COMMAND

(ERA `legacy` or `modern`: the grade set; LABEL the client's column title; NOTE how it was
run, e.g. its default era or the option that picks the other one; COMMAND the command graded,
as `faultline grade --command` got it). For each run, OUT/ID.ERA.grade.json is `faultline
grade --format json`, OUT/ID.ERA.exit its exit code and OUT/ID.ERA.wall_s the seconds it
took. OUT/meta.json holds `date` and `faultline` (what was run). Standard library only.
"""

import html
import json
import os
import sys

ERAS = [
    ("legacy", "MCP 2025-11-25", "the default set, `faultline grade`"),
    ("modern", "MCP 2026-07-28", "`faultline grade --era modern`"),
]
# The verdict kinds by what they mean for the application (crates/verdicts/src/kind.rs:
# is_loss, is_harm, fails_grade).
LOSS = {
    "silent_gap", "cursor_reuse", "quarantine_violation", "foreign_event", "duplicate",
    "duplicate_effect", "missed_change", "lost_task", "out_of_order",
}
HARM = {"hung", "reconnect_loop"}
NO_VERDICT = {"untested", "crashed", "bad_report", "other_era"}
CATEGORIES = [
    ("lost", "lost silently", "something the server produced never reached the application, reached it twice, out of order or from another session, and no error said so"),
    ("harm", "hung or looped", "no report within the timeout, or the same failing request again and again"),
    ("none", "no verdict", "the client crashed, printed no report that reads, tested nothing or spoke the other era"),
    ("loud", "failed loudly", "a loss the application was told of, or a fault on the wire only (a retry into a dead session, a misrouted or zombie session, an era mismatch)"),
    ("na", "not applicable", "the client said it cannot receive what the scenario's faults act on"),
    ("clean", "clean", "everything produced reached the application, and something was tested"),
]
MAX_WHY = 220
# The repository's root, as a client's stderr may spell it: the card shows paths from it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def category(kinds):
    """One category per scenario: the worst of its verdicts, in CATEGORIES' order."""
    kinds = set(kinds)
    if kinds & LOSS:
        return "lost"
    if kinds & HARM:
        return "harm"
    if kinds & NO_VERDICT:
        return "none"
    if kinds == {"clean"}:
        return "clean"
    if kinds == {"not_applicable"}:
        return "na"
    return "loud"


def shorten(text, limit=MAX_WHY):
    text = " ".join(str(text).split()).replace(f"file://{ROOT}/", "").replace(f"{ROOT}/", "")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def load(out):
    """The runs of OUT, each a dict: id, era, label, note, command, grade, exit, wall_s."""
    runs = []
    for line in (read(os.path.join(out, "runs.tsv"), "") or "").splitlines():
        if not line.strip():
            continue
        rid, era, label, note, command = line.split("\t")
        base = os.path.join(out, f"{rid}.{era}")
        try:
            grade = json.loads(read(base + ".grade.json", "") or "null")
        except json.JSONDecodeError:
            grade = None
        code = (read(base + ".exit", "") or "").strip()
        wall = (read(base + ".wall_s", "") or "").strip()
        runs.append({
            "id": rid, "era": era, "label": label, "note": note, "command": command,
            "grade": grade, "exit": int(code) if code.lstrip("-").isdigit() else None,
            "wall_s": int(wall) if wall.isdigit() else None,
        })
    return runs


def version_of(run):
    """The client's exact version, as its adapter reports it (`sdk` or `client`)."""
    for scenario in (run["grade"] or {}).get("scenarios", []):
        report = scenario.get("client_report") or {}
        if report.get("sdk") or report.get("client"):
            return str(report.get("sdk") or report.get("client"))
    return "unknown (no report)"


def replay(run, scenario):
    era = " --era modern" if run["era"] == "modern" else ""
    return f"faultline grade{era} --scenario {scenario} --command \"{run['command']}\""


def explanation(verdicts, stderr=""):
    """One line: each verdict's reason, shortened; for a crash, the last line of the client's
    stderr that names an error or a warning, else the last that says anything (a caret under
    a source line does not)."""
    parts = [f"{v['kind']}: {shorten(v.get('why', ''), 160)}" for v in verdicts if v["kind"] != "clean"]
    if any(v["kind"] == "crashed" for v in verdicts):
        said = [line for line in (stderr or "").splitlines() if sum(c.isalpha() for c in line) >= 8]
        # A line that names an error or a warning says more than a quoted source line.
        said = [line for line in said if "rror" in line or "arning" in line] or said
        if said:
            parts.append(f"its stderr: {shorten(said[-1], 160)}")
    return shorten("; ".join(parts), MAX_WHY * 2)


def cells(run):
    """scenario -> (kinds, explanation or None, compressed or None); a kind that came
    twice (two sessions misrouted) is shown once. `compressed`: the call's wait in
    scenario time and the run's wall time, where grade's clock passed the one in the
    other (`compressed_wait`)."""
    out = {}
    for scenario in (run["grade"] or {}).get("scenarios", []):
        kinds = list(dict.fromkeys(v["kind"] for v in scenario["verdicts"]))
        why = None if kinds == ["clean"] else explanation(scenario["verdicts"], scenario.get("client_stderr", ""))
        out[scenario["scenario"]] = (kinds, why, scenario.get("compressed_wait"))
    return out


def span(ms):
    """A duration as grade spells one: 20m, 4m30s, 1.5s."""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:g}s"
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{rest}s" if rest else "")
    return text


def clean_text(compressed):
    """What a clean cell says: `clean`, and where grade's clock compressed the call's wait,
    how much of it the client's own timers never met."""
    if not compressed:
        return "clean"
    return f"clean (waited {span(compressed['call_waited_ms'])} in {compressed['wall_ms'] / 1000:.1f} s)"


def summary(run):
    counts = {key: 0 for key, _, _ in CATEGORIES}
    for kinds, _, _ in cells(run).values():
        counts[category(kinds)] += 1
    return counts


def anchor(run, scenario):
    return f"{run['era']}-{run['id']}-{scenario}".replace("_", "-").lower()


def scenarios_of(runs):
    """The scenarios of an era's runs, in the order grade ran them for the first run."""
    order = []
    for run in runs:
        for scenario in (run["grade"] or {}).get("scenarios", []):
            if scenario["scenario"] not in order:
                order.append(scenario["scenario"])
    return order


def md_escape(text):
    return str(text).replace("|", "\\|")


def render_md(runs, meta):
    lines = [
        "# The client report card",
        "",
        "Every MCP client this repository has an adapter for ([examples/clients](../examples/clients/README.md)),",
        "graded by `faultline grade` on each era's default set where it speaks that era: one table",
        "per era, one row per scenario, one column per client, each cell the verdicts (what they",
        "mean: [verdicts.md](verdicts.md), [grade.md](grade.md)). Every cell that is not `clean`",
        "links to a line that says what happened and the command that replays it.",
        "",
        f"Generated by `tests/report-card/run.sh` (`just report-card`) on {meta.get('date', '?')}, with",
        f"{meta.get('faultline', 'faultline')}; do not edit by hand. Real clients run on wall-clock timers of",
        "their own, so a run may differ from another in a verdict that depends on timing",
        "(`tests/interop/expectations.json` records the outcomes CI accepts for the SDK clients, and why).",
        "A `clean (waited 20m in 0.4 s)` was graded on compressed time: the call waited 20 minutes of the",
        "scenario's time in 0.4 s of wall time, so a timer of the client's own on the wall clock in between",
        "(the TypeScript SDK's 60 s request timeout) never met that wait; `faultline grade --time-scale 1`",
        "runs the scenario at the wall's pace ([grade.md](grade.md#compressed-time-and---time-scale)).",
        "",
        "## Summary",
        "",
        "Scenarios per client, each counted once, by its worst verdict:",
        "",
    ]
    for _, title, meaning in CATEGORIES:
        lines.append(f"- **{title}**: {meaning};")
    lines[-1] = lines[-1][:-1] + "."
    lines += [
        "",
        "| client | version | era | scenarios | " + " | ".join(t for _, t, _ in CATEGORIES) + " | grade's exit | wall time |",
        "|---|---|---|---" + "|---" * len(CATEGORIES) + "|---|---|",
    ]
    for era, era_title, _ in ERAS:
        for run in [r for r in runs if r["era"] == era]:
            counts = summary(run)
            total = sum(counts.values())
            wall = f"{run['wall_s']} s" if run["wall_s"] is not None else "?"
            lines.append(
                f"| {md_escape(run['label'])} | {md_escape(version_of(run))} | {era_title} | {total} | "
                + " | ".join(str(counts[k]) for k, _, _ in CATEGORIES)
                + f" | {run['exit']} | {wall} |"
            )
    for era, era_title, how in ERAS:
        era_runs = [r for r in runs if r["era"] == era]
        if not era_runs:
            continue
        lines += ["", f"## {era_title}", "", f"Graded with {how}. The clients, as run:", ""]
        for run in era_runs:
            lines.append(f"- **{md_escape(run['label'])}**: {md_escape(version_of(run))}; {run['note']}; `{run['command']}`.")
        lines += [
            "",
            "| scenario | " + " | ".join(md_escape(r["label"]) for r in era_runs) + " |",
            "|---" * (len(era_runs) + 1) + "|",
        ]
        by_run = [cells(r) for r in era_runs]
        for scenario in scenarios_of(era_runs):
            row = [scenario]
            for run, c in zip(era_runs, by_run):
                kinds, why, compressed = c.get(scenario, (None, None, None))
                if kinds is None:
                    row.append("(not graded)")
                elif why is None:
                    row.append(clean_text(compressed))
                else:
                    row.append(f"[{', '.join(kinds)}](#{anchor(run, scenario)})")
            lines.append("| " + " | ".join(row) + " |")
        lines += ["", f"### What happened: {era_title}", ""]
        for scenario in scenarios_of(era_runs):
            for run, c in zip(era_runs, by_run):
                kinds, why, _ = c.get(scenario, (None, None, None))
                if why is None:
                    continue
                lines.append(
                    f"- <a id=\"{anchor(run, scenario)}\"></a>**{md_escape(run['label'])}, {scenario}**: "
                    f"{md_escape(why)} Replay: `{replay(run, scenario)}`"
                )
    return "\n".join(lines) + "\n"


CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1500px; padding: 0 1em; color: #1d2330; }
h1, h2 { font-weight: 600; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #cfd6e0; padding: 4px 7px; vertical-align: top; text-align: left; }
th { background: #eef2f7; position: sticky; top: 0; }
.clean { background: #e6f4ea; }
.lost { background: #fbe3e1; }
.harm { background: #fde9cf; }
.none { background: #e8e3f3; }
.loud { background: #fff7d6; }
.na { background: #eef0f2; color: #555; }
td.num { text-align: right; }
details summary { cursor: pointer; font-weight: 600; }
details p { margin: .3em 0; max-width: 32em; }
code { font-size: 12px; word-break: break-all; background: #f4f6f9; padding: 0 2px; }
.legend span { display: inline-block; padding: 1px 6px; margin-right: 6px; border: 1px solid #cfd6e0; }
"""


def render_html(runs, meta):
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        "<html lang=\"en\"><head><meta charset=\"utf-8\"><title>faultline: the client report card</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>The client report card</h1>",
        "<p>Every MCP client with an adapter in <code>examples/clients/</code>, graded by <code>faultline grade</code> "
        "on each era's default set where it speaks that era: one table per era, one row per scenario, one column "
        "per client. Open a cell that is not clean for what happened and the command that replays it.</p>",
        f"<p>Generated by <code>tests/report-card/run.sh</code> (<code>just report-card</code>) on {e(meta.get('date', '?'))}, "
        f"with {e(meta.get('faultline', 'faultline'))}.</p>",
        "<p class=\"legend\">" + "".join(f"<span class=\"{k}\"><b>{e(t)}</b></span> {e(m)}<br>" for k, t, m in CATEGORIES) + "</p>",
        "<h2>Summary</h2><table><tr><th>client</th><th>version</th><th>era</th><th>scenarios</th>"
        + "".join(f"<th>{e(t)}</th>" for _, t, _ in CATEGORIES) + "<th>grade's exit</th><th>wall time</th></tr>",
    ]
    for era, era_title, _ in ERAS:
        for run in [r for r in runs if r["era"] == era]:
            counts = summary(run)
            wall = f"{run['wall_s']} s" if run["wall_s"] is not None else "?"
            out.append(
                f"<tr><td>{e(run['label'])}</td><td>{e(version_of(run))}</td><td>{e(era_title)}</td>"
                f"<td class=\"num\">{sum(counts.values())}</td>"
                + "".join(f"<td class=\"num {k if counts[k] else ''}\">{counts[k]}</td>" for k, _, _ in CATEGORIES)
                + f"<td class=\"num\">{run['exit']}</td><td class=\"num\">{e(wall)}</td></tr>"
            )
    out.append("</table>")
    for era, era_title, how in ERAS:
        era_runs = [r for r in runs if r["era"] == era]
        if not era_runs:
            continue
        out.append(f"<h2>{e(era_title)}</h2><p>Graded with {e(how.replace('`', ''))}.</p><ul>")
        for run in era_runs:
            out.append(f"<li><b>{e(run['label'])}</b>: {e(version_of(run))}; {e(run['note'])}; <code>{e(run['command'])}</code></li>")
        out.append("</ul><table><tr><th>scenario</th>" + "".join(f"<th>{e(r['label'])}</th>" for r in era_runs) + "</tr>")
        by_run = [cells(r) for r in era_runs]
        for scenario in scenarios_of(era_runs):
            row = [f"<td><code>{e(scenario)}</code></td>"]
            for run, c in zip(era_runs, by_run):
                kinds, why, compressed = c.get(scenario, (None, None, None))
                if kinds is None:
                    row.append("<td>(not graded)</td>")
                elif why is None:
                    row.append(f"<td class=\"clean\">{e(clean_text(compressed))}</td>")
                else:
                    row.append(
                        f"<td class=\"{category(kinds)}\" id=\"{anchor(run, scenario)}\"><details><summary>{e(', '.join(kinds))}</summary>"
                        f"<p>{e(why)}</p><p>Replay: <code>{e(replay(run, scenario))}</code></p></details></td>"
                    )
            out.append("<tr>" + "".join(row) + "</tr>")
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


BEGIN = "<!-- report-card:begin (written by tests/report-card/render.py) -->"
END = "<!-- report-card:end -->"


def render_summary(runs, meta, link="docs/report-card.md"):
    """The README's compact table: one row per client and era, scenarios counted by their
    worst verdict, linking to the card."""
    lines = [
        BEGIN,
        f"| client | era | {' | '.join(t for k, t, _ in CATEGORIES if k != 'clean')} | clean |",
        "|---|---" + "|---" * len(CATEGORIES) + "|",
    ]
    for era, era_title, _ in ERAS:
        for run in [r for r in runs if r["era"] == era]:
            counts = summary(run)
            lines.append(
                f"| {md_escape(version_of(run))} | {era_title[4:]} | "
                + " | ".join(str(counts[k]) for k, _, _ in CATEGORIES if k != "clean")
                + f" | {counts['clean']} of {sum(counts.values())} |"
            )
    lines += ["", f"Graded {meta.get('date', '?')}; every cell explained, with the command that replays it: [the report card]({link}).", END]
    return "\n".join(lines)


def update_between_markers(path, block):
    """Replaces what stands between BEGIN and END in `path` (both kept) with `block`."""
    text = read(path, "") or ""
    if BEGIN not in text or END not in text:
        raise SystemExit(f"render.py: {path} has no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w") as f:
        f.write(head + block + tail)


def main(argv):
    if len(argv) not in (4, 5):
        raise SystemExit(__doc__)
    out, md_path, html_path = argv[1:4]
    runs = load(out)
    if not runs:
        raise SystemExit(f"render.py: no runs in {out}/runs.tsv")
    meta = json.loads(read(os.path.join(out, "meta.json"), "{}") or "{}")
    with open(md_path, "w") as f:
        f.write(render_md(runs, meta))
    with open(html_path, "w") as f:
        f.write(render_html(runs, meta))
    if len(argv) == 5:
        update_between_markers(argv[4], render_summary(runs, meta))
    print(f"wrote {md_path} and {html_path}{' and ' + argv[4] + chr(39) + 's summary' if len(argv) == 5 else ''}: {len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
