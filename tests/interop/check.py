"""Judges what each real client experienced against the server's ground truth.

    python check.py OUTDIR [--write-results RESULTS.md]

OUTDIR holds, per run, `CLIENT-SCENARIO.client.json` (written by ts/client.mjs or
py/client.py) and `CLIENT-SCENARIO.ledger.json` (`GET /_chaos/ledger` after the run: the
server's clock and faults fired beside `ledger`, the model's typed `Ledger` as serde writes
it; see crates/model/src/ledger.rs for the fields).
For each run this computes observations (what was produced, what the application got,
what it was told, what went to the server afterwards), compares the ones listed in
expectations.json, prints a table, and exits 1 if

  * a fault-free baseline is not clean (every progress event and every result arrived), or
  * auto_long_job (`serve --time-scale auto`) misses a progress value 1..81 or the result,
    virtual time did not pass 81 minutes, or the client took 20 s of wall time or more, or
  * an observation differs from the recorded expectation (the SDK's behaviour changed:
    look, then update expectations.json and RESULTS.md on purpose).

The expectations record what these pinned SDK versions really do under each incident, not
what they should do: losing events in Behavior B is the *expected* finding.

Standard library only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLIENTS = ["typescript", "python"]
SCENARIOS = ["baseline", "behavior_a", "behavior_b", "replay_404_cascade", "auto_long_job"]

# auto_long_job: long_job {"steps": 81, "interval_ms": 60000} on `serve --time-scale auto`.
AUTO_STEPS = 81
AUTO_VIRTUAL_MS = AUTO_STEPS * 60_000
# The acceptance criterion: on the auto clock a client gets its 81-minute job done
# in under 20 s of wall time. A generous bound on a property of the product (the clock
# jumps whenever the client waits on the call's stream; a healthy run takes well under a
# second), not a synchronisation: nothing waits for this long to make something happen.
AUTO_WALL_LIMIT_MS = 20_000


def ranges(values: list[int]) -> str:
    """[1,2,3,7,8] -> '1-3,7-8' (compact, stable: used in expectations)."""
    values = sorted(set(values))
    if not values:
        return ""
    out, start, prev = [], values[0], values[0]
    for v in values[1:]:
        if v == prev + 1:
            prev = v
            continue
        out.append(f"{start}-{prev}" if start != prev else f"{start}")
        start = prev = v
    out.append(f"{start}-{prev}" if start != prev else f"{start}")
    return ",".join(out)


def error_kind(call: dict[str, Any]) -> str | None:
    if call["outcome"] != "error":
        return None
    cls = (call.get("error") or "").split(":", 1)[0]
    code = call.get("error_code")
    return f"{cls}({code})" if code is not None else cls


def events(ledger: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event produced, in production order, with its index (`EventRef`), its stream's
    kind and its session's wire id. `ledger` is the typed ledger: sessions are indexed by
    their key, streams and events count from their `*_base` (0 unless the server trimmed)."""
    wire_id = [s["wire_id"] for s in ledger["sessions"]]
    streams_base = ledger["streams_base"]
    out = []
    for index, e in enumerate(ledger["events"], start=ledger["events_base"]):
        kind = ledger["streams"][e["stream"] - streams_base]["kind"]
        out.append({**e, "event": index, "kind": kind, "session": wire_id[e["session"]]})
    return out


# A notification's `seq` counts that session's notifications from 0, so two sessions reuse
# the same seqs: a notification is named by (session, seq), on both sides.
def note_key(event: dict[str, Any]) -> tuple[str | None, int]:
    return (event["session"], event["payload"]["seq"])


def notes_got(rec: dict[str, Any]) -> list[tuple[str | None, int]]:
    return [(n["session"], n["seq"]) for n in rec["notifications"] if n.get("seq") is not None]


def observe(scenario: str, rec: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """Observations: every value here is derived from the record and the ledger (`body` is
    what `GET /_chaos/ledger` answered, `ledger` the typed ledger in it)."""
    ledger = body["ledger"]
    obs: dict[str, Any] = {}
    evs = events(ledger)
    calls = rec["calls"]
    obs["harness_ok"] = not rec.get("harness_error") and not rec.get("harness_timeout")
    obs["call_outcomes"] = [c["outcome"] for c in calls]
    obs["app_errors"] = [k for k in (error_kind(c) for c in calls) if k]
    obs["transport_errors_reported"] = len(rec.get("transport_errors", []))
    # Did the SDK tell the application anything at all about a broken stream (TS:
    # transport.onerror; Python: an Exception to message_handler)? Not the same as a call
    # failing: the call itself may still succeed.
    obs["transport_error_signalled"] = obs["transport_errors_reported"] > 0
    obs["initialize_requests"] = sum(1 for a in ledger["answers"] if a.get("rpc_method") == "initialize")
    res = ledger["resumptions"]
    obs["resumptions"] = [
        {
            "cursor": r["cursor"],
            "resolution": r["resolution"]["resolution"],
            **({"answer": r["resolution"]["answer"]} if "answer" in r["resolution"] else {}),
            **({"generation": r["resolution"]["generation"]} if "generation" in r["resolution"] else {}),
        }
        for r in res
    ]

    if scenario in ("baseline", "behavior_a"):
        job_calls = [c for c in calls if c["tool"] == "long_job"]
        progress_events = [e for e in evs if e["payload"]["type"] == "progress"]
        produced = [e["payload"]["step"] for e in progress_events]
        got = [int(p) for p in rec["progress"]]
        obs["progress_produced"] = len(produced)
        obs["progress_received"] = len(got)
        obs["progress_lost"] = ranges(sorted(set(produced) - set(got)))
        obs["progress_duplicates"] = len(got) - len(set(got))
        obs["progress_in_order"] = got == sorted(got)
        results = [e for e in evs if e["payload"]["type"] == "tool_result"]
        obs["result_produced"] = len(results) > 0
        obs["result_delivered"] = bool(job_calls) and job_calls[-1]["outcome"] == "result"
        if scenario == "baseline":
            echo = [c for c in calls if c["tool"] == "echo"]
            obs["echo_ok"] = bool(echo) and echo[0]["outcome"] == "result" and echo[0]["text"] == "hello faultline"
            obs["result_text_ok"] = bool(job_calls) and job_calls[-1]["text"] == "long_job finished 20 steps"
        else:
            # The ids the events carried after the resume: did the numbering restart?
            fresh = [r["attached_to"] for r in res if r.get("attached_to") is not None]
            ids_after = [e["id"] for e in evs if fresh and e["stream"] == fresh[0] and e["payload"]["type"] != "priming"]
            obs["ids_after_resume"] = ranges(ids_after)
            obs["cursor_sent"] = res[0]["cursor"] if res else None

    elif scenario == "behavior_b":
        notes = [e for e in evs if e["payload"]["type"] == "notification"]
        by_key = {note_key(e): e for e in notes}
        got = notes_got(rec)
        got_set = set(got)
        for gen in (1, 2):
            produced = [e for e in notes if e["generation"] == gen]
            lost = [e["id"] for e in produced if note_key(e) not in got_set]
            obs[f"gen{gen}_produced"] = len(produced)
            obs[f"gen{gen}_lost_ids"] = ranges(lost)
        obs["notifications_duplicates"] = len(got) - len(got_set)
        obs["unknown_notifications"] = sum(1 for k in got if k not in by_key)
        restart_gen = 2
        obs["cursor_reuse"] = any(
            r["resolution"]["resolution"] == "honoured" and r["resolution"].get("generation") == restart_gen
            and int(r["cursor"]) <= 41
            for r in res
        )
        obs["call_after_restart"] = calls[-1]["outcome"] if calls else None

    elif scenario == "auto_long_job":
        job_calls = [c for c in calls if c["tool"] == "long_job"]
        got = [int(p) for p in rec["progress"]]
        want = list(range(1, AUTO_STEPS + 1))
        obs["progress_received"] = len(got)
        obs["progress_missing"] = ranges(sorted(set(want) - set(got)))
        obs["progress_exact"] = got == want  # every value 1..81, in order, each once
        obs["result_delivered"] = bool(job_calls) and job_calls[-1]["outcome"] == "result"
        obs["result_text_ok"] = bool(job_calls) and job_calls[-1]["text"] == f"long_job finished {AUTO_STEPS} steps"
        # Virtual time, from the server: the job's span in the ledger, the ledger's clock
        # and GET /_chaos/clock read by the client once the result was in.
        jobs = [j for j in ledger["jobs"] if j["tool"] == "long_job" and j.get("ended")]
        obs["job_virtual_ms"] = jobs[0]["ended"][0] - jobs[0]["started_ms"] if jobs else None
        clock = rec.get("clock_after") or {}
        obs["clock_time_scale"] = clock.get("time_scale")
        obs["clock_ms_after_result"] = clock.get("now_ms")
        obs["ledger_now_ms"] = body["now_ms"]
        obs["virtual_81_min_passed"] = (
            (obs["job_virtual_ms"] or 0) >= AUTO_VIRTUAL_MS
            and (obs["clock_ms_after_result"] or 0) >= AUTO_VIRTUAL_MS
            and body["now_ms"] >= AUTO_VIRTUAL_MS
        )
        obs["wall_ms"] = rec.get("wall_ms")
        obs["wall_under_limit"] = obs["wall_ms"] is not None and obs["wall_ms"] < AUTO_WALL_LIMIT_MS

    elif scenario == "replay_404_cascade":
        notes = [e for e in evs if e["payload"]["type"] == "notification"]
        got = set(notes_got(rec))
        obs["notifications_produced"] = len(notes)
        obs["notifications_lost"] = len([e for e in notes if note_key(e) not in got])
        obs["replay_status"] = None
        session = ledger["sessions"][0]
        # `died` is `[at_ms, cause]`, or null while the session lives.
        died_at, cause = session.get("died") or (10**18, None)
        obs["session_died"] = cause
        gets = [a for a in ledger["answers"] if a["method"] == "Get" and a["at_ms"] > 0]
        if len(gets) >= 2:
            obs["replay_status"] = gets[1]["status"]
        dead = [
            a for a in ledger["answers"]
            if a["at_ms"] >= died_at and a.get("session_sent") == session["wire_id"] and a["method"] == "Post"
        ]
        obs["statuses_after_expiry"] = [a["status"] for a in dead]
        obs["reinitialized"] = obs["initialize_requests"] > 1
        obs["session_id_kept"] = rec.get("session_after", session["wire_id"]) == session["wire_id"]
    return obs


def auto_failures(obs: dict[str, Any]) -> list[str]:
    """Why an auto_long_job run fails the issue's acceptance criterion (empty: it passes)."""
    out = []
    if not obs["progress_exact"]:
        out.append(
            f"progress values 1..{AUTO_STEPS} not all received in order "
            f"({obs['progress_received']} received, missing [{obs['progress_missing'] or 'none'}])"
        )
    if not (obs["result_delivered"] and obs["result_text_ok"]):
        out.append("the tool result was not delivered")
    if not obs["virtual_81_min_passed"]:
        out.append(
            f"virtual time did not pass {AUTO_VIRTUAL_MS} ms (job {obs['job_virtual_ms']}, "
            f"clock {obs['clock_ms_after_result']}, ledger {obs['ledger_now_ms']})"
        )
    if not obs["wall_under_limit"]:
        out.append(f"wall time {obs['wall_ms']} ms, not under {AUTO_WALL_LIMIT_MS} ms")
    return out


def summarize(client: str, scenario: str, obs: dict[str, Any]) -> tuple[str, str]:
    """(what happened, lost/surfaced/recovered) for the table."""
    if scenario == "auto_long_job":
        what = (
            f"{obs['progress_received']}/{AUTO_STEPS} progress in order, result "
            f"{'delivered' if obs['result_delivered'] else 'NOT delivered'}; "
            f"job took {obs['job_virtual_ms']} ms virtual (clock {obs['clock_time_scale']}, "
            f"{obs['clock_ms_after_result']} ms after the result) in {obs['wall_ms']} ms wall"
        )
        return what, "clean" if not auto_failures(obs) else "BROKEN"
    if scenario == "baseline":
        ok = obs["echo_ok"] and obs["progress_lost"] == "" and obs["result_delivered"] and obs["result_text_ok"]
        what = f"echo ok; {obs['progress_received']}/{obs['progress_produced']} progress + result"
        return what, "clean" if ok else "BROKEN"
    if scenario == "behavior_a":
        r = obs["resumptions"][0] if obs["resumptions"] else {}
        what = (
            f"resumed with Last-Event-ID {obs.get('cursor_sent')} -> {r.get('resolution')}"
            f"{' (' + r['answer'] + ')' if r.get('answer') else ''}; new stream ids {obs.get('ids_after_resume')}; "
            f"{obs['progress_received']}/{obs['progress_produced']} progress, result "
            f"{'delivered' if obs['result_delivered'] else 'NOT delivered'}"
        )
        lost = obs["progress_lost"]
        verdict = (
            f"lost {lost} silently" if lost and not obs["app_errors"]
            else "surfaced: " + ", ".join(obs["app_errors"]) if obs["app_errors"]
            else "recovered, no loss; the id reset went unnoticed (no dedup, no contiguity check)"
        )
        return what, verdict
    if scenario == "behavior_b":
        r = obs["resumptions"][0] if obs["resumptions"] else {}
        what = (
            f"restart; resumed with Last-Event-ID {r.get('cursor')} -> {r.get('resolution')} against generation "
            f"{r.get('generation')}; gen-1 lost [{obs['gen1_lost_ids'] or 'none'}], gen-2 lost [{obs['gen2_lost_ids'] or 'none'}] "
            f"of {obs['gen2_produced']}"
        )
        lost = ", ".join(
            f"gen-{g} ids {obs[f'gen{g}_lost_ids']}" for g in (1, 2) if obs[f"gen{g}_lost_ids"]
        )
        if obs["app_errors"]:
            verdict = "surfaced: " + ", ".join(obs["app_errors"])
        elif lost:
            verdict = f"lost {lost} silently" + (
                " (old cursor honoured against the new generation)" if obs["cursor_reuse"] else ""
            )
        else:
            verdict = "no loss"
        return what, verdict
    what = (
        f"replay after drop: HTTP {obs['replay_status']}; session died ({obs['session_died']}); "
        f"3 calls after expiry -> HTTP {obs['statuses_after_expiry']}; app saw {sorted(set(obs['app_errors']))}; "
        f"re-initialized: {'yes' if obs['reinitialized'] else 'no'}"
    )
    verdict = (
        "surfaced each call as an error; "
        + ("recovered (re-initialized)" if obs["reinitialized"] else "no recovery: kept the dead session id")
        + (f"; lost {obs['notifications_lost']} notifications" if obs["notifications_lost"] else "")
    )
    return what, verdict


def compare(expected: dict[str, Any], obs: dict[str, Any]) -> list[str]:
    diffs = []
    for key, want in expected.items():
        if key.startswith("_"):
            continue
        got = obs.get(key, "<missing>")
        if got != want:
            diffs.append(f"{key}: expected {json.dumps(want)}, observed {json.dumps(got)}")
    return diffs


def main() -> int:
    outdir = Path(sys.argv[1])
    results_path = None
    if "--write-results" in sys.argv:
        results_path = Path(sys.argv[sys.argv.index("--write-results") + 1])
    expectations = json.loads((HERE / "expectations.json").read_text())
    rows, details, failures = [], [], []
    versions = {}
    for client in CLIENTS:
        for scenario in SCENARIOS:
            key = f"{client}/{scenario}"
            rec_path = outdir / f"{client}-{scenario}.client.json"
            led_path = outdir / f"{client}-{scenario}.ledger.json"
            if not rec_path.exists() or not led_path.exists():
                failures.append(f"{key}: no record (the client or the server did not finish)")
                rows.append((client, scenario, "no record", "FAIL"))
                continue
            rec = json.loads(rec_path.read_text())
            ledger = json.loads(led_path.read_text())
            versions[client] = rec.get("sdk", client)
            obs = observe(scenario, rec, ledger)
            what, verdict = summarize(client, scenario, obs)
            diffs = []
            if not obs["harness_ok"]:
                diffs.append(f"harness: {rec.get('harness_error') or 'timed out'}")
            if scenario == "baseline" and verdict != "clean":
                diffs.append("the fault-free baseline is not clean")
            if scenario == "auto_long_job":
                diffs.extend(auto_failures(obs))
            exp = expectations.get(key)
            if exp is None:
                diffs.append("no recorded expectation (add one to expectations.json)")
            else:
                diffs.extend(compare(exp, obs))
            status = "ok" if not diffs else "FAIL"
            failures.extend(f"{key}: {d}" for d in diffs)
            rows.append((client, scenario, what, verdict, status))
            details.append((key, obs, diffs, (exp or {}).get("_note")))

    lines = [
        "# How real MCP clients cope with faultline's incidents",
        "",
        "Generated by `tests/interop/run.sh` (do not edit by hand). Clients: "
        + ", ".join(f"`{v}`" for v in versions.values())
        + ". Each run is a fresh `faultline serve --control`; incidents run with `--time-scale 0` "
        "and the harness moves virtual time with `/_chaos/clock/advance`; `auto_long_job` runs "
        "the fault-free server with `--time-scale auto`, which moves its own clock, and must "
        f"deliver an {AUTO_STEPS}-minute job in under {AUTO_WALL_LIMIT_MS // 1000} s of wall time. Ground truth is "
        "`GET /_chaos/ledger`; \"lost\" means produced by the server for this session but never "
        "handed to the application by the SDK.",
        "",
        "| client | scenario | what happened | lost / surfaced / recovered | vs. expectation |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        if len(row) == 4:
            client, scenario, what, status = row
            verdict = ""
        else:
            client, scenario, what, verdict, status = row
        lines.append(f"| {client} | {scenario} | {what} | {verdict} | {status} |")
    lines += ["", "## Observations per run", ""]
    for key, obs, diffs, why in details:
        lines.append(f"### {key}")
        lines.append("")
        if why:
            lines.append(f"Expected because: {why}.")
            lines.append("")
        lines.append("```json")
        lines.append(json.dumps(obs, indent=1, sort_keys=True))
        lines.append("```")
        for d in diffs:
            lines.append(f"- **changed:** {d}")
        lines.append("")
    text = "\n".join(lines) + "\n"
    print("\n".join(lines[: 6 + len(rows)]))
    if results_path:
        results_path.write_text(text)
    if failures:
        print("\nFAILURES:", file=sys.stderr)
        for f in failures:
            print(f"  {f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
