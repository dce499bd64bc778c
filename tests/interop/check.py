#!/usr/bin/env python3
"""Judge the interop runs that run.sh left in OUT against expectations.json.

    check.py OUT CLIENT... [--record DIR [--accept CLIENT/SCENARIO=WHY]...]

For each client: OUT/CLIENT.grade.json (faultline grade --format json), .grade.exit,
.grade.err, and the auto_long_job run (.auto.stdout, .auto.wall_ms). Prints one table;
exit 1 when a verdict differs from the recorded expectation, when what is known of both
SDKs does not hold (2025 clients: baseline clean, Behavior B silent_gap; 2026-07-28
clients: no duplicate_effect in reissue_duplicate_effect, missed_change in
listen_missed_change; grade exits 1), or when auto_long_job did not deliver all 81
progress values and the result within 20 s.
With --record DIR, writes DIR/expectations.json and DIR/RESULTS.md from this run instead of
comparing (the known facts are still checked).

expectations.json holds, per client and scenario, the accepted outcomes: each its verdicts,
why it is right (`why`) and how many recorded runs gave it (`seen`; outcomes recorded
before the count was kept start at 1, the run that first recorded them). Record mode counts
each outcome it sees again, and refuses an outcome not accepted before (exit 1, nothing
added for it) unless `--accept CLIENT/SCENARIO=WHY` names it (shell-style wildcards allowed:
`python/*`) with the reason it is right: one flaky run is never accepted for ever by
accident.

A client whose own thread scheduling adds a verdict run to run, whatever the faults (rmcp
runs each notification handler as its own task, so progress may come swapped:
`out_of_order`), is listed in SCHEDULING: its outcomes match with or without that verdict,
are recorded without it, and count in `seen_with` the recorded runs in which it came too.
"""

import fnmatch

import json
import os
import sys

AUTO_STEPS = 81
AUTO_WALL_LIMIT_MS = 20_000
PINS = {
    "typescript": "@modelcontextprotocol/sdk 1.32.2 (examples/clients/typescript)",
    "python": "mcp 2.3.0 (examples/clients/python)",
    "typescript-modern": "@modelcontextprotocol/client 2.4.0, versionNegotiation 'auto' (examples/clients/typescript-modern)",
    "python-modern": "mcp 2.3.0 `Client`, mode 'auto' (examples/clients/python/client_modern.py)",
    "rmcp": "rmcp 3.11.0, the Rust SDK's client, `serve` (examples/clients/rust-rmcp)",
    "rmcp-modern": "rmcp 3.11.0, lifecycle `Auto` (examples/clients/rust-rmcp --modern)",
}
# Graded with `faultline grade --era modern` (the 2026-07-28 scenarios).
MODERN = {"typescript-modern", "python-modern", "rmcp-modern"}
# Verdicts that come and go with the client's own thread scheduling, whatever the faults.
# rmcp 3.11 hands each notification to its handler on a task of its own (its service loop
# spawns one per notification), so two progress values may reach the application swapped on
# any scenario with progress, or not: the same run gave [1, 2, 3, 4, 20, 5, ...] on baseline
# once and 1..=20 in order the next time. An outcome of such a client matches an accepted one
# with or without these verdicts; what each run gave is in RESULTS.md.
SCHEDULING = {"rmcp": ("out_of_order",), "rmcp-modern": ("out_of_order",)}
# `call_stream_without_id` (docs/client-habits.md), shown by call_cut_before_an_id: the
# error each 2025 client's report must carry there, and whether it waits for its request
# timeout (the TypeScript SDK 1.x resumes a POST stream only after an id, so the call
# waits for its 60 s timeout: `Wait`) or fails the call at once (`Fail`).
HABITS = {
    "typescript": ("timed out", True),
    "python": ("SSE stream ended without a response", False),
    "rmcp": ("", False),  # any error ("Transport closed" in 3.11)
}


# More habits of docs/client-habits.md, each shown by a field scenario run.sh grades by
# name and read from its ledger (what the client sent), not from its verdicts:
# - `reinit` on tssdk_1708_stale_session_404 (the server restarts and forgets the
#   session; later calls get 404): whether the client initializes a new session (rmcp's
#   `AtOnce`) or keeps the dead id (`Never`, typescript-sdk#1708, python-sdk#1676);
# - `cursor_after_resumed_drop` on tssdk_2499_cursor_forgotten (a resumed stream cut
#   before it brought an id): whether a later GET goes without `Last-Event-ID`
#   (`Forget`, typescript-sdk#2499) or the cut resumption is resumed again with its cursor;
# - `get_failure: StreamOnly` and `standalone_errors: Logged` on
#   csharp_1713_get_reconnect_400 (the standalone GET refused 400 for good): the later
#   call is made and answered, and the application is told nothing;
# - `result_check` over every run: whether the client lists tools before handing a result
#   over (the Python SDK's `ListsToolsFirst`) or never lists them.
REINITIALIZES = {"typescript": False, "python": False, "rmcp": True}
FORGETS_CURSOR = {"typescript": True, "python": False, "rmcp": False}
LISTS_TOOLS = {"typescript": False, "python": True, "rmcp": False}


def ledger_of(out, client, scenario):
    """CLIENT's ledger of SCENARIO, or None when none was written."""
    text = read(os.path.join(out, f"{client}-ledgers", f"{scenario}.ledger.json"))
    return None if text is None else json.loads(text)


def habit_ledger_facts(out, report, client):
    """The habits REINITIALIZES, FORGETS_CURSOR and LISTS_TOOLS name, and the standalone
    stream's, held against the ledgers of the runs that show them."""
    problems = []
    runs = {r["scenario"]: r for r in report["scenarios"]}
    ledger = ledger_of(out, client, "tssdk_1708_stale_session_404")
    if ledger is None:
        problems.append("tssdk_1708_stale_session_404: no ledger written")
    else:
        inits = sum(1 for a in ledger.get("answers", []) if a.get("rpc_method") == "initialize")
        if REINITIALIZES[client] and inits < 2:
            problems.append(f"tssdk_1708_stale_session_404: {inits} initialize, no new session after the 404 (reinit: AtOnce)")
        if not REINITIALIZES[client] and inits != 1:
            problems.append(f"tssdk_1708_stale_session_404: {inits} initialize, not the one of a client that keeps the dead id (reinit: Never)")
    ledger = ledger_of(out, client, "tssdk_2499_cursor_forgotten")
    if ledger is None:
        problems.append("tssdk_2499_cursor_forgotten: no ledger written")
    else:
        resumed = sorted(r["conn"] for r in ledger.get("resumptions", []) if r.get("cursor") is not None)
        first = resumed[0] if resumed else None
        bare_after = [a for a in ledger.get("answers", [])
                      if a.get("method") == "Get" and first is not None and a["conn"] > first and a["conn"] not in resumed]
        if first is None:
            problems.append("tssdk_2499_cursor_forgotten: the cut call stream was never resumed")
        elif FORGETS_CURSOR[client] and not bare_after:
            problems.append("tssdk_2499_cursor_forgotten: no GET without Last-Event-ID after the resumption was cut (cursor_after_resumed_drop: Forget)")
        elif not FORGETS_CURSOR[client] and (bare_after or len(resumed) < 2):
            problems.append("tssdk_2499_cursor_forgotten: the cut resumption was not resumed again with its cursor")
    run = runs.get("csharp_1713_get_reconnect_400")
    ledger = ledger_of(out, client, "csharp_1713_get_reconnect_400")
    if run is None or ledger is None:
        problems.append("csharp_1713_get_reconnect_400: not graded, or no ledger written")
    else:
        answers = ledger.get("answers", [])
        refused = [a["at_ms"] for a in answers if a.get("method") == "Get" and (a.get("status") or 0) >= 400]
        later = [a for a in answers
                 if a.get("rpc_method") == "tools/call" and a.get("status") == 200 and refused and a["at_ms"] > refused[0]]
        if not refused:
            problems.append("csharp_1713_get_reconnect_400: no standalone GET was refused")
        elif not later:
            problems.append("csharp_1713_get_reconnect_400: no call answered after the refused GET (get_failure: StreamOnly)")
        told = (run.get("client_report") or {}).get("error")
        if told:
            problems.append(f"csharp_1713_get_reconnect_400: the application was told {told!r} (standalone_errors: Logged)")
    for name, r in runs.items():
        ledger = ledger_of(out, client, name)
        if ledger is None or not (r.get("client_report") or {}).get("result"):
            continue
        listed = any(a.get("rpc_method") == "tools/list" for a in ledger.get("answers", []))
        if LISTS_TOOLS[client] and not listed:
            problems.append(f"{name}: the result was handed over without a tools/list (result_check: ListsToolsFirst)")
        if not LISTS_TOOLS[client] and listed:
            problems.append(f"{name}: the client listed tools (result_check: None)")
    return problems


# Whether the SDK's transport deletes its session as the client closes (the `on_close`
# habit of docs/client-habits.md: the presets' `Abandon` and `DeleteSession`), held
# against every run in which the client printed a report, so closed as it meant to.
DELETES_SESSION = {"typescript": False, "python": True, "rmcp": True}


# A wall-time timer that grade's compressed clock never lets fire (a difference
# tests/interop/preset_differences.json lists between a preset and its real client),
# shown by grading the real client again with `--time-scale`, at a pace where the timer
# meets the scenario's wait: CLIENT -> (scenario, pace). The TypeScript SDK's 60 s request
# timeout at pace 10 is 10 minutes of baseline's 20-minute job: the run must give the
# preset's verdict, and the compressed run of the same scenario must say what it hid.
PACED = {"typescript": ("baseline", 10)}


def essential(kinds, client):
    """The verdicts that say what the faults did: without the client's scheduling verdicts
    (clean when nothing else is left)."""
    optional = SCHEDULING.get(client, ())
    kept = [k for k in kinds if k not in optional]
    return kept or (["clean"] if kinds else [])


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def last_json_line(text):
    for line in reversed((text or "").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def grade_of(out, client):
    """(exit code, report or None, problems): the default set's grade, with the runs of
    the scenarios graded by name to show a habit (CLIENT.habits.json) added after it."""
    code = int(read(os.path.join(out, f"{client}.grade.exit"), "-1").strip() or -1)
    text = read(os.path.join(out, f"{client}.grade.json"), "")
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        err = read(os.path.join(out, f"{client}.grade.err"), "")
        return code, None, [f"grade printed no JSON (exit {code}); stderr: {err.strip()[-600:]}"]
    problems = []
    # run.sh writes CLIENT.habits.json for every 2025 client (the redirect creates it
    # whatever grade does); a run that has none graded no habit scenario.
    for name in ("habits", "habits_paced"):
        habits = read(os.path.join(out, f"{client}.{name}.json"))
        if client in HABITS and habits is not None:
            try:
                report["scenarios"] += json.loads(habits)["scenarios"]
                report["habits_graded"] = True
            except (json.JSONDecodeError, KeyError, TypeError):
                err = read(os.path.join(out, f"{client}.{name}.err"), "")
                problems.append(f"the habit scenarios ({name}) printed no JSON; stderr: {err.strip()[-600:]}")
    return code, report, problems


def habit_facts(report, client):
    """What docs/client-habits.md says the client does where a call's stream ends before
    any event id (`call_stream_without_id`), held against its run of
    call_cut_before_an_id: the error its report carries, and when."""
    run = next((r for r in report["scenarios"] if r["scenario"] == "call_cut_before_an_id"), None)
    if run is None:
        return ["call_cut_before_an_id was not graded"]
    error = (run.get("client_report") or {}).get("error") or ""
    want, waits = HABITS[client]
    problems = []
    if not error or want.lower() not in str(error).lower():
        problems.append(f"call_cut_before_an_id: the error is {error!r}, not one with {want!r}")
    wall = run.get("wall_ms") or 0
    if waits and wall < 60_000:
        problems.append(f"call_cut_before_an_id: failed after {wall} ms, before its 60 s request timeout")
    if not waits and wall >= 30_000:
        problems.append(f"call_cut_before_an_id: failed after {wall} ms, not at once")
    return problems


def close_facts(out, report, client):
    """What docs/client-habits.md says the client's transport does as it closes
    (`on_close`), held against the ledgers: a DELETE of its session in every run in which
    it made its call (a `tools/call` answered) and printed its report, so closed as it
    meant to (`DeleteSession`: a transport that died connecting, or a client that hung,
    deletes nothing); or none in any run (`Abandon`)."""
    deletes = DELETES_SESSION[client]
    problems = []
    for run in report["scenarios"]:
        path = os.path.join(out, f"{client}-ledgers", f"{run['scenario']}.ledger.json")
        ledger = read(path)
        if ledger is None:
            if run.get("client_report"):
                problems.append(f"{run['scenario']}: no ledger written")
            continue
        answers = json.loads(ledger).get("answers", [])
        sent = any(a.get("method") == "Delete" for a in answers)
        called = any(a.get("rpc_method") == "tools/call" for a in answers)
        if sent and not deletes:
            problems.append(f"{run['scenario']}: the client deleted its session as it exited (on_close: Abandon)")
        if deletes and not sent and called and run.get("client_report"):
            problems.append(f"{run['scenario']}: the client sent no DELETE as it exited (on_close: DeleteSession)")
    return problems


def paced_facts(out, report, client):
    """The preset's verdict where its wall-time timer meets the wait (PACED), held against
    the paced run (CLIENT.paced.json, which run.sh writes for each client of PACED); and
    the compressed run of that scenario, if clean, saying how long its call waited
    (`compressed_wait`)."""
    scenario, pace = PACED[client]
    text = read(os.path.join(out, f"{client}.paced.json"))
    if text is None:
        return []
    try:
        paced = json.loads(text)["scenarios"][0]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
        err = read(os.path.join(out, f"{client}.paced.err"), "")
        return [f"the paced grade (--time-scale {pace}) printed no JSON; stderr: {err.strip()[-600:]}"]
    here = os.path.dirname(os.path.abspath(__file__))
    differences = json.loads(read(os.path.join(here, "preset_differences.json"), "{}")).get("differences", [])
    listed = next((d for d in differences if d["client"] == client and d["scenario"] == scenario), None)
    if listed is None:
        return [f"{scenario}: no preset difference listed to show at --time-scale {pace}"]
    if paced.get("scenario") != scenario:
        # run.sh names the scenario and pace itself: it must grade what PACED says.
        return [f"the paced grade ran {paced.get('scenario')!r}, not {scenario!r} (run.sh and check.py's PACED disagree)"]
    problems = []
    kinds = essential([v["kind"] for v in paced["verdicts"]], client)
    if kinds != listed["preset"]:
        problems.append(
            f"{scenario} at --time-scale {pace}: {kinds}, not the preset's {listed['preset']} "
            f"(preset_differences.json says: {listed['why'][:120]})")
    compressed = next((r for r in report["scenarios"] if r["scenario"] == scenario), None)
    if compressed is not None and essential([v["kind"] for v in compressed["verdicts"]], client) == ["clean"] \
            and not compressed.get("compressed_wait"):
        problems.append(f"{scenario}: clean on compressed time without saying how long the call waited (compressed_wait)")
    return problems


# The SDK's own read timeout, set by its documented setting (client.py
# `--sse-read-timeout-s`: the `http_client` the transport streams with) shorter than the
# gaps between baseline's progress events, met at a pace: CLIENT -> (scenario, pace,
# seconds). What docs/client-habits.md says the Python SDK does when it fires, read from the
# run: `read_timeout_ends: Stream` (the transport resumes the cut stream with
# `Last-Event-ID`: baseline has no fault, so every resumption is the client's own), and
# `progress: CleanEndOnly` with `reconnect: GiveUpAfter(2)` (the call is given up, loudly,
# after two resumptions although each brought progress), and `Rewind` (the resumption
# replays from the cursor the cut one was opened with: progress handed over twice).
READ_TIMEOUT = {"python": ("baseline", 20, 1)}


def read_timeout_facts(out, client):
    """The read-timeout run (CLIENT.read_timeout.json and its ledger, which run.sh writes
    for each client of READ_TIMEOUT), held to the habits it shows."""
    scenario, pace, seconds = READ_TIMEOUT[client]
    text = read(os.path.join(out, f"{client}.read_timeout.json"))
    if text is None:
        return [f"no read-timeout run ({client}.read_timeout.json: run.sh grades it for each client of READ_TIMEOUT)"]
    try:
        run = json.loads(text)["scenarios"][0]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
        err = read(os.path.join(out, f"{client}.read_timeout.err"), "")
        return [f"the read-timeout grade printed no JSON; stderr: {err.strip()[-600:]}"]
    what = f"{scenario} at --time-scale {pace} with a {seconds} s read timeout"
    if run.get("scenario") != scenario:
        return [f"the read-timeout grade ran {run.get('scenario')!r}, not {scenario!r} (run.sh and check.py's READ_TIMEOUT disagree)"]
    ledger_text = read(os.path.join(out, f"{client}-read-timeout-ledgers", f"{scenario}.ledger.json"))
    if ledger_text is None:
        return [f"{what}: no ledger written"]
    ledger = json.loads(ledger_text)
    problems = []
    # The call's own stream (the SDK's standalone GET times out too, and is resumed too).
    streams = ledger.get("streams", [])
    requests = {i for i, st in enumerate(streams) if st.get("kind") == "request"}
    resumed = [r for r in ledger.get("resumptions", [])
               if r.get("cursor") is not None and (r.get("resolution") or {}).get("stream") in requests]
    if len(resumed) != 2:
        problems.append(f"{what}: the call's stream was resumed {len(resumed)} times with Last-Event-ID, not 2 "
                        "(read_timeout_ends: Stream resumes the cut stream; GiveUpAfter(2) stops after two)")
    replayed = sum((r.get("resolution") or {}).get("replayed", 0) for r in resumed)
    if replayed == 0:
        problems.append(f"{what}: the resumptions replayed nothing, so nothing shows they brought progress")
    reported = run.get("client_report") or {}
    if not reported.get("error") or reported.get("result") is not None:
        problems.append(f"{what}: the call was not given up loudly (error {reported.get('error')!r}, "
                        f"result {reported.get('result')!r}): progress: CleanEndOnly gives it up after two failures in a row")
    kinds = essential([v["kind"] for v in run["verdicts"]], client)
    if "duplicate" not in kinds:
        problems.append(f"{what}: {kinds}, no duplicate (cursor_after_resumed_drop: Rewind replays what the cut resumption brought)")
    return problems


def known_facts(code, report, modern=False, client=None):
    kinds = {r["scenario"]: essential([v["kind"] for v in r["verdicts"]], client) for r in report["scenarios"]}
    problems = []
    if modern:
        # Neither SDK re-issues a call whose request stream was cut, nor listens again
        # after a listen stream dropped (their sources say so; these runs show it).
        for scenario in ("reissue_duplicate_effect", "listen_missed_change", "tasks_lost_on_restart"):
            if scenario not in kinds:
                problems.append(f"{scenario} was not graded")
        if "duplicate_effect" in kinds.get("reissue_duplicate_effect", []):
            problems.append("reissue_duplicate_effect is duplicate_effect: the SDK re-issued a cut call")
        if "listen_missed_change" in kinds and "missed_change" not in kinds.get("listen_missed_change", []):
            problems.append(f"listen_missed_change is {kinds.get('listen_missed_change')}, not missed_change")
        # Both SDKs probe once per client and keep the era: mid-deploy, the calls that meet
        # a rolled-back replica fail and nothing probes again.
        if "rolling_era_rollback" in kinds and "era_mismatch" not in kinds["rolling_era_rollback"]:
            problems.append(f"rolling_era_rollback is {kinds['rolling_era_rollback']}, not era_mismatch")
    elif kinds.get("baseline") != ["clean"]:
        problems.append(f"baseline is {kinds.get('baseline')}, not clean")
    if not modern and "silent_gap" not in kinds.get("behavior_b", []):
        problems.append(f"behavior_b is {kinds.get('behavior_b')}, not silent_gap")
    if code != 1 or report.get("lost_silently") is not True:
        problems.append(
            f"grade exited {code} (lost_silently {report.get('lost_silently')}); expected 1"
        )
    return problems


def auto_of(out, client):
    """(summary, wall_ms, problems); a client in SCHEDULING may hand the values in any order."""
    report = last_json_line(read(os.path.join(out, f"{client}.auto.stdout"), ""))
    wall = read(os.path.join(out, f"{client}.auto.wall_ms"))
    wall_ms = int(wall.strip()) if wall and wall.strip().isdigit() else None
    if report is None:
        err = read(os.path.join(out, f"{client}.auto.stderr"), "")
        return "no report", wall_ms, [f"auto_long_job: no JSON report; stderr: {err.strip()[-600:]}"]
    progress = [round(p) for p in report.get("progress", [])]
    problems = []
    order = ""
    if "out_of_order" in SCHEDULING.get(client, ()) and progress != sorted(progress):
        order = f", {sum(1 for a, b in zip(progress, progress[1:]) if b < a)} swap(s) in the order handed"
        progress = sorted(progress)
    if progress != list(range(1, AUTO_STEPS + 1)):
        problems.append(f"auto_long_job: progress {progress[:5]}... ({len(progress)} values), not 1..={AUTO_STEPS}")
    if report.get("result") is None:
        problems.append(f"auto_long_job: no result (error: {report.get('error')})")
    if wall_ms is None or wall_ms >= AUTO_WALL_LIMIT_MS:
        problems.append(f"auto_long_job: {wall_ms} ms of wall time (limit {AUTO_WALL_LIMIT_MS})")
    summary = f"{len(progress)}/{AUTO_STEPS} progress{order}, result {'delivered' if report.get('result') is not None else 'missing'}, {wall_ms} ms wall"
    return summary, wall_ms, problems


def alternatives(expected, client=None):
    """The verdict lists of a scenario's accepted outcomes (a real client whose outcome
    depends on its own wall-clock timers, under load, may have several), without the
    client's scheduling verdicts."""
    return [essential(list(outcome["verdicts"]), client) for outcome in expected or []]


def accepted_reason(accepts, client, scenario):
    """The reason an --accept flag gives for a new outcome of client/scenario, or None."""
    for pattern, why in accepts:
        if fnmatch.fnmatchcase(f"{client}/{scenario}", pattern):
            return why
    return None


def parse_accepts(values):
    """--accept CLIENT/SCENARIO=WHY values as (pattern, why); a missing reason is an error."""
    accepts = []
    for value in values:
        pattern, _, why = value.partition("=")
        if "/" not in pattern or not why.strip():
            raise SystemExit(f"check.py: --accept {value!r}: give CLIENT/SCENARIO=WHY (why the new outcome is right)")
        accepts.append((pattern.strip(), why.strip()))
    return accepts


def main(argv):
    record = None
    accept_values = []
    while "--accept" in argv:
        i = argv.index("--accept")
        accept_values.append(argv[i + 1])
        argv = argv[:i] + argv[i + 2 :]
    accepts = parse_accepts(accept_values)
    if "--record" in argv:
        i = argv.index("--record")
        record = argv[i + 1]
        argv = argv[:i] + argv[i + 2 :]
    if accepts and record is None:
        raise SystemExit("check.py: --accept only means something with --record")
    out, clients = argv[1], argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    expectations = json.loads(read(os.path.join(here, "expectations.json"), "{}"))

    rows, problems, observed, autos = [], [], {}, {}
    for client in clients:
        code, report, trouble = grade_of(out, client)
        problems += [f"{client}: {p}" for p in trouble]
        if report is not None:
            problems += [f"{client}: {p}" for p in known_facts(code, report, client in MODERN, client)]
            if report.get("habits_graded"):
                problems += [f"{client}: {p}" for p in habit_facts(report, client)]
                problems += [f"{client}: {p}" for p in habit_ledger_facts(out, report, client)]
            if client in DELETES_SESSION:
                problems += [f"{client}: {p}" for p in close_facts(out, report, client)]
            if client in PACED:
                problems += [f"{client}: {p}" for p in paced_facts(out, report, client)]
            if client in READ_TIMEOUT:
                problems += [f"{client}: {p}" for p in read_timeout_facts(out, client)]
            observed[client] = {}
            for run in report["scenarios"]:
                kinds = [v["kind"] for v in run["verdicts"]]
                observed[client][run["scenario"]] = kinds
                expected = alternatives(expectations.get(client, {}).get(run["scenario"]), client)
                if record is not None:
                    new = essential(kinds, client) not in expected and accepted_reason(accepts, client, run["scenario"]) is None
                    verdict = "REFUSED (new outcome, no --accept)" if new else "recorded"
                elif not expected:
                    verdict = "NEW (no expectation: `just interop-record`)"
                    problems.append(f"{client}/{run['scenario']}: no expectation recorded")
                elif essential(kinds, client) in expected:
                    verdict = "ok"
                else:
                    shown = " or ".join(", ".join(e) for e in expected)
                    verdict = f"DIFFERS (expected {shown})"
                    problems.append(f"{client}/{run['scenario']}: {kinds} != expected {shown}")
                why = next((v["why"] for v in run["verdicts"] if v["kind"] != "clean"), run["verdicts"][0]["why"])
                rows.append((client, run["scenario"], ", ".join(kinds), why, verdict))
        summary, _, trouble = auto_of(out, client)
        autos[client] = summary
        problems += [f"{client}: {p}" for p in trouble]
        rows.append((client, "auto_long_job", "ok" if not trouble else "FAILED", summary, "ok" if not trouble else "FAILED"))

    width = max((len(r[1]) for r in rows), default=10)
    for client, scenario, kinds, why, verdict in rows:
        print(f"{client:10}  {scenario:{width}}  {kinds:34}  {verdict:8}  {why[:110]}")
    print()

    if record is not None:
        # What was accepted before stays, and each outcome seen again counts one more run.
        # An outcome not accepted before is added only when an --accept flag gives the
        # reason it is right; otherwise it is refused (and the run fails).
        merged = {c: {s: [dict(o) for o in outcomes] for s, outcomes in v.items()} for c, v in expectations.items()}
        for client, runs in observed.items():
            for scenario, kinds in runs.items():
                outcomes = merged.setdefault(client, {}).setdefault(scenario, [])
                came_too = [k for k in kinds if k in SCHEDULING.get(client, ())]
                match = next((o for o in outcomes if essential(list(o["verdicts"]), client) == essential(kinds, client)), None)
                if match is not None:
                    match["seen"] = int(match.get("seen") or 0) + 1
                    # (The dict first: `d.setdefault(..)[k] = d[..].get(..)` reads the
                    # right side first and fails on an outcome that has none yet.)
                    seen_with = match.setdefault("seen_with", {}) if came_too else {}
                    for k in came_too:
                        seen_with[k] = seen_with.get(k, 0) + 1
                    continue
                why = accepted_reason(accepts, client, scenario)
                if why is None:
                    known = " or ".join(", ".join(o["verdicts"]) for o in outcomes) or "nothing"
                    problems.append(
                        f"{client}/{scenario}: new outcome {kinds} (accepted: {known}) not recorded: "
                        f"if it is right, record again with --accept '{client}/{scenario}=WHY' "
                        f"(INTEROP_ACCEPT='{client}/{scenario}=WHY' for run.sh)"
                    )
                    continue
                outcome = {"verdicts": essential(kinds, client), "seen": 1, "why": why}
                if came_too:
                    outcome["seen_with"] = {k: 1 for k in came_too}
                outcomes.append(outcome)
            for scenario in [s for s, o in merged[client].items() if not o]:
                del merged[client][scenario]
        with open(os.path.join(record, "expectations.json"), "w") as f:
            json.dump(merged, f, indent=1, sort_keys=True)
            f.write("\n")
        write_results(os.path.join(record, "RESULTS.md"), rows, clients)
        print(f"recorded {os.path.join(record, 'expectations.json')} and RESULTS.md")

    for p in problems:
        print(f"FAIL {p}")
    if not problems:
        print(f"interop: {len(rows)} runs as expected")
    return 1 if problems else 0


def kept_rows(path, clients):
    """The table rows of RESULTS.md for clients not graded in this run: a run of some
    clients (INTEROP_CLIENTS) rewrites their rows and keeps the others'."""
    kept = []
    for line in (read(path, "") or "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == 4 and cells[0] not in ("client",) and cells[0] not in clients:
            kept.append((cells[0], cells[1], cells[2], cells[3], None))
    return kept


def write_results(path, rows, clients):
    rows = kept_rows(path, clients) + list(rows)
    order = list(PINS)
    rows.sort(key=lambda r: order.index(r[0]) if r[0] in order else len(order))  # stable
    shown = list(dict.fromkeys(r[0] for r in rows))
    lines = [
        "# How the official MCP SDK clients cope with faultline's scenarios",
        "",
        "Generated by `INTEROP_RECORD=1 tests/interop/run.sh` (`just interop-record`); do not edit by",
        "hand. Each SDK client runs unmodified behind its adapter, graded by `faultline grade` on the",
        "default set (the 2026-07-28 clients on `--era modern`, the 2026-07-28 scenarios): a fresh",
        "server per scenario on the harness's clock, verdicts from the server's",
        "ledger against what the adapter reports its application was handed. `auto_long_job` runs the",
        "adapter against the fault-free `faultline serve --time-scale auto` (81 steps of one minute).",
        "A run of some clients (`INTEROP_CLIENTS`) rewrites their rows and keeps the others'.",
        "",
        "Clients: " + "; ".join(PINS.get(c, c) for c in shown) + ".",
        "",
        "| client | scenario | verdicts | why |",
        "|---|---|---|---|",
    ]
    for client, scenario, kinds, why, _ in rows:
        lines.append(f"| {client} | {scenario} | {kinds} | {why.replace('|', '/')} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
