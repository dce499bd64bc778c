#!/usr/bin/env python3
"""Compares the probe rows of each real SDK server with those of `faultline serve --profile`
of the same name, step by step (every cell: status, body, frames, ids, end, sid), writes
the table to docs/profiles.md, and fails when a profile matches fewer steps than its
recorded figure (floors.json).

Usage: compare.py OUT_DIR [--record]
  OUT_DIR holds real-NAME.json and faultline-NAME.json for each profile (run.sh writes them
  with `faultline probe URL --json FILE`).
It also fails when the probe, against a real server or against `faultline serve --profile
NAME`, names any profile but NAME as the closest.
  --record rewrites floors.json with this run's figures, and crates/probe/real/ with the
  real servers' rows.
Every remaining difference is listed with its reason from reasons.json ("NAME/step": why);
a difference without a reason is listed as such.
races.json lists the cells a real server answers differently from run to run with its own
wall-clock timing ("NAME/step": {"column": ..., "seen": [values], "why": ...}): such a cell
matches when the real server's value and faultline's are both among those seen, so a race
in the real server never sinks CI, and a value never seen still does.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
#: The cells of a probe row, as `faultline probe` prints them.
COLUMNS = ["step", "status", "body", "frames", "ids", "end", "sid"]

PROFILES = ["ts-1.32-store", "ts-1.32", "ts-2.4", "python-2.3-store", "python-2.3", "rmcp-3.11"]


def load(path):
    with open(path) as f:
        return json.load(f)


def closest(probed):
    """The profile `faultline probe` named closest in its JSON result."""
    return probed["profiles"][0]["profile"]


def compare(real, ours, races=None):
    """(matched steps, total steps, [(step, {column: (real, ours)})]). `races`: step ->
    {"column": ..., "seen": [...]} for one profile (races.json)."""
    races = races or {}
    ours_by_step = {r["step"]: r for r in ours}
    diffs = []

    def same(step, column, a, b):
        race = races.get(step)
        if race and race["column"] == column:
            return a in race["seen"] and b in race["seen"]
        return a == b

    for r in real:
        o = ours_by_step.get(r["step"], {})
        cells = {c: (r[c], o.get(c, "(missing)")) for c in COLUMNS[1:]
                 if not same(r["step"], c, r[c], o.get(c))}
        if cells:
            diffs.append((r["step"], cells))
    return len(real) - len(diffs), len(real), diffs


def cell(v):
    return f"`{v}`"


def main(argv):
    out = argv[1]
    record = "--record" in argv
    floors_path = os.path.join(HERE, "floors.json")
    floors = load(floors_path) if os.path.exists(floors_path) else {}
    reasons = load(os.path.join(HERE, "reasons.json"))
    races = load(os.path.join(HERE, "races.json"))
    results, failed = {}, []
    for name in PROFILES:
        real_probe = load(os.path.join(out, f"real-{name}.json"))
        ours_probe = load(os.path.join(out, f"faultline-{name}.json"))
        real, ours = real_probe["rows"], ours_probe["rows"]
        for who, probed in [("the real server", real_probe), ("faultline serve --profile", ours_probe)]:
            if closest(probed) != name:
                failed.append(f"FAIL: faultline probe of {who} {name} names {closest(probed)} "
                              f"the closest profile, not {name}")
        prefix = f"{name}/"
        raced = {k[len(prefix):]: v for k, v in races.items() if k.startswith(prefix)}
        results[name] = compare(real, ours, raced)
        matched, total, diffs = results[name]
        floor = floors.get(name, 0)
        print(f"{name}: {matched}/{total} steps match (recorded {floor})")
        if matched < floor and not record:
            steps = ", ".join(s for s, _ in diffs)
            failed.append(f"FAIL: profile {name} matches {matched}/{total} probe steps, "
                          f"below its recorded {floor}; differing steps: {steps}")
    lines = [
        "# SDK profiles against the real servers",
        "",
        "Written by `tests/profiles/run.sh` (do not edit by hand): the black-box probe",
        "(`faultline probe URL`) against each real SDK server, installed pinned from its",
        "registry (`tests/profiles/servers/`), and against `faultline serve --profile NAME`,",
        "compared step by step. A step matches when every cell is the same: status, body class,",
        "SSE frame sequence (progress said relative to the cursor), event id shape, whether the",
        "stream ended, whether the response carried `Mcp-Session-Id`. CI fails when a profile",
        "matches fewer steps than its recorded figure (`tests/profiles/floors.json`).",
        "",
        "| profile | real server | steps matching |",
        "|---|---|---|",
    ]
    servers = {
        "ts-1.32-store": "`@modelcontextprotocol/sdk` 1.32.2, example `InMemoryEventStore`",
        "ts-1.32": "`@modelcontextprotocol/sdk` 1.32.2, no event store",
        "ts-2.4": "`@modelcontextprotocol/server` 2.4.0, `createMcpHandler`",
        "python-2.3-store": "`mcp` 2.3.0, example-style event store",
        "python-2.3": "`mcp` 2.3.0, no event store",
        "rmcp-3.11": "`rmcp` 3.11.0, defaults",
    }
    all_matched = all_total = 0
    for name in PROFILES:
        matched, total, _ = results[name]
        all_matched += matched
        all_total += total
        lines.append(f"| `{name}` | {servers[name]} | {matched}/{total} ({100 * matched // total} %) |")
    lines.append(f"| all | | {all_matched}/{all_total} ({100 * all_matched // all_total} %) |")
    lines += ["", "## Remaining differences", ""]
    for name in PROFILES:
        _, _, diffs = results[name]
        lines.append(f"### `{name}`")
        lines.append("")
        if not diffs:
            lines += ["None.", ""]
            continue
        lines += ["| step | real server | faultline | why |", "|---|---|---|---|"]
        for step, cells in diffs:
            real = "; ".join(f"{c} {cell(v[0])}" for c, v in cells.items())
            ours = "; ".join(f"{c} {cell(v[1])}" for c, v in cells.items())
            why = reasons.get(f"{name}/{step}", "no reason recorded yet")
            lines.append(f"| `{step}` | {real} | {ours} | {why} |")
        lines.append("")
    lines += ["## Races in the real servers", "",
              "Cells a real server answers differently from run to run, with its own wall-clock",
              "timing (`tests/profiles/races.json`): they match when both values are among those seen.",
              "", "| profile / step | cell | seen | why |", "|---|---|---|---|"]
    for key, race in sorted(races.items()):
        seen = "; ".join(cell(v) for v in race["seen"])
        lines.append(f"| `{key}` | {race['column']} | {seen} | {race['why']} |")
    lines.append("")
    lines += ["## The real servers' rows", ""]
    for name in PROFILES:
        real = load(os.path.join(out, f"real-{name}.json"))["rows"]
        lines += [f"### `{name}`", "", "| " + " | ".join(COLUMNS) + " |",
                  "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(cell(r[c]) for c in COLUMNS) + " |" for r in real]
        lines.append("")
    with open(os.path.join(ROOT, "docs", "profiles.md"), "w") as f:
        f.write("\n".join(lines))
    if record:
        # The real servers' rows `faultline probe` sets a probed server beside.
        for name in PROFILES:
            rows = load(os.path.join(out, f"real-{name}.json"))["rows"]
            with open(os.path.join(ROOT, "crates", "probe", "real", f"{name}.json"), "w") as f:
                json.dump(rows, f, indent=1)
                f.write("\n")
        with open(floors_path, "w") as f:
            json.dump({n: results[n][0] for n in PROFILES}, f, indent=1)
            f.write("\n")
    for line in failed:
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
