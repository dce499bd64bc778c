"""check.py judges interop runs: these tests feed it made-up runs and check each rule.

    python3 -m unittest tests/interop/test_check.py
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402


def write_read_timeout(out, client, scenario="baseline", resumed=(0, 1), error="call: gave up",
                       kinds=("duplicate",)):
    """The read-timeout run run.sh writes for a client of check.READ_TIMEOUT, as the Python
    SDK 2.3.0 gives it: its standalone GET resumed once, the call's stream twice (`resumed`:
    what each replayed), the call given up with `error`."""
    run = {"scenario": scenario, "verdicts": [{"kind": k, "why": k} for k in kinds],
           "client_report": {"progress": [1, 1, 2], "result": None, "error": error}}
    with open(os.path.join(out, f"{client}.read_timeout.json"), "w") as f:
        json.dump({"command": "x", "scenarios": [run]}, f)
    ledgers = os.path.join(out, f"{client}-read-timeout-ledgers")
    os.makedirs(ledgers, exist_ok=True)
    resumptions = [{"cursor": "1", "resolution": {"resolution": "honoured", "stream": 0, "replayed": 0}}]
    resumptions += [{"cursor": "2", "resolution": {"resolution": "honoured", "stream": 1, "replayed": n}}
                    for n in resumed]
    ledger = {"streams": [{"kind": "standalone"}, {"kind": "request"}], "resumptions": resumptions}
    with open(os.path.join(ledgers, f"{scenario}.ledger.json"), "w") as f:
        json.dump(ledger, f)


HABIT_SCENARIOS = ("tssdk_1708_stale_session_404", "tssdk_2499_cursor_forgotten", "csharp_1713_get_reconnect_400")


def write_habit_runs(out, client, reinit=None, forgets=None, lists=None, told=None, later_call=True):
    """The runs of the scenarios run.sh grades by name to show a habit from the ledger
    (tssdk_1708, tssdk_2499, csharp_1713), each with its ledger, as the SDK gives them
    (the check's tables), or with one habit turned (`reinit`, `forgets`, `lists`, `told`:
    the error the application reports, `later_call`: a call answered after the refused
    GET). Returns their runs."""
    reinit = check.REINITIALIZES[client] if reinit is None else reinit
    forgets = check.FORGETS_CURSOR[client] if forgets is None else forgets
    lists = check.LISTS_TOOLS[client] if lists is None else lists
    listing = [{"conn": 90, "at_ms": 90, "method": "Post", "rpc_method": "tools/list", "status": 200}] if lists else []
    init = {"conn": 1, "at_ms": 0, "method": "Post", "rpc_method": "initialize", "status": 200}
    call = {"conn": 3, "at_ms": 0, "method": "Post", "rpc_method": "tools/call", "status": 200}
    ledgers = {
        "tssdk_1708_stale_session_404": {"answers": [init, call] + ([dict(init, conn=5, at_ms=40_000)] if reinit else []) + listing},
        "tssdk_2499_cursor_forgotten": {
            "answers": [init, call, {"conn": 5, "at_ms": 16_000, "method": "Get", "status": 200},
                        {"conn": 6, "at_ms": 17_000, "method": "Get", "status": 409 if forgets else 200}] + listing,
            "resumptions": [{"conn": 5, "cursor": "3"}] + ([] if forgets else [{"conn": 6, "cursor": "3"}]),
        },
        "csharp_1713_get_reconnect_400": {
            "answers": [init, call, {"conn": 5, "at_ms": 61_000, "method": "Get", "status": 400}]
            + ([dict(call, conn=7, at_ms=900_000)] if later_call else []) + listing},
    }
    if check.DELETES_SESSION[client]:
        for ledger in ledgers.values():
            ledger["answers"].append({"conn": 99, "at_ms": 900_000, "method": "Delete", "status": 200})
    ledger_dir = os.path.join(out, f"{client}-ledgers")
    os.makedirs(ledger_dir, exist_ok=True)
    runs = []
    for name, ledger in ledgers.items():
        with open(os.path.join(ledger_dir, f"{name}.ledger.json"), "w") as f:
            json.dump(ledger, f)
        error = told if name == "csharp_1713_get_reconnect_400" else None
        runs.append({"scenario": name, "verdicts": [{"kind": "silent_gap", "why": "x"}],
                     "client_report": {"error": error, "result": "done"}, "wall_ms": 900})
    return runs


def grade_json(kinds_by_scenario, lost_silently=True):
    return {
        "command": "x",
        "lost_silently": lost_silently,
        "scenarios": [
            {"scenario": s, "verdicts": [{"kind": k, "why": f"{s} {k}"} for k in kinds]}
            for s, kinds in kinds_by_scenario.items()
        ],
    }


def accepted(kinds_by_scenario, why="known", seen=1):
    """expectations.json's shape: per scenario, its accepted outcomes."""
    return {s: [{"verdicts": kinds, "seen": seen, "why": why}] for s, kinds in kinds_by_scenario.items()}


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.record = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.addCleanup(shutil.rmtree, self.record)
        self.here = os.path.dirname(os.path.abspath(check.__file__))

    def write_run(self, client, kinds, exit_code=1, progress=81, wall_ms=400):
        if client in check.READ_TIMEOUT:
            write_read_timeout(self.out, client)
        with open(os.path.join(self.out, f"{client}.grade.json"), "w") as f:
            json.dump(grade_json(kinds, lost_silently=exit_code == 1), f)
        with open(os.path.join(self.out, f"{client}.grade.exit"), "w") as f:
            f.write(f"{exit_code}\n")
        report = {"progress": list(range(1, progress + 1)), "result": "done", "error": None}
        with open(os.path.join(self.out, f"{client}.auto.stdout"), "w") as f:
            f.write("log line\n" + json.dumps(report) + "\n")
        with open(os.path.join(self.out, f"{client}.auto.wall_ms"), "w") as f:
            f.write(f"{wall_ms}\n")

    def run_check(self, *clients, expectations=None, record=False, accept=()):
        argv = ["check.py", self.out, *clients]
        if record:
            argv += ["--record", self.record]
        for value in accept:
            argv += ["--accept", value]
        original = check.read

        def read(path, default=None):
            if expectations is not None and path.endswith("expectations.json"):
                return json.dumps(expectations)
            return original(path, default)

        check.read = read
        try:
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                code = check.main(argv)
        finally:
            check.read = original
        return code, printed.getvalue()

    KNOWN = {"baseline": ["clean"], "behavior_b": ["silent_gap", "cursor_reuse"]}

    def test_a_run_as_expected_passes(self):
        self.write_run("python", self.KNOWN)
        code, printed = self.run_check("python", expectations={"python": accepted(self.KNOWN)})
        self.assertEqual(code, 0, printed)

    def test_a_verdict_that_differs_from_the_expectation_fails(self):
        self.write_run("python", self.KNOWN)
        expected = accepted(dict(self.KNOWN, behavior_b=["silent_gap"]))
        code, printed = self.run_check("python", expectations={"python": expected})
        self.assertEqual(code, 1)
        self.assertIn("python/behavior_b", printed)

    def test_any_of_several_recorded_outcomes_passes(self):
        self.write_run("python", self.KNOWN)
        both = [{"verdicts": ["silent_gap"], "seen": 1, "why": "a"},
                {"verdicts": ["silent_gap", "cursor_reuse"], "seen": 3, "why": "b"}]
        code, printed = self.run_check("python", expectations={"python": dict(accepted(self.KNOWN), behavior_b=both)})
        self.assertEqual(code, 0, printed)

    def test_a_scenario_without_expectation_fails(self):
        self.write_run("python", self.KNOWN)
        code, printed = self.run_check("python", expectations={})
        self.assertEqual(code, 1)
        self.assertIn("no expectation recorded", printed)

    def test_the_known_facts_hold_even_when_recording(self):
        self.write_run("python", {"baseline": ["clean"], "behavior_b": ["clean"]}, exit_code=0)
        code, printed = self.run_check("python", expectations={}, record=True)
        self.assertEqual(code, 1)
        self.assertIn("behavior_b is ['clean'], not silent_gap", printed)
        self.assertIn("expected 1", printed)

    MODERN = {
        "reissue_duplicate_effect": ["clean"],
        "listen_missed_change": ["clean", "missed_change"],
        "tasks_lost_on_restart": ["clean"],
    }

    def test_a_modern_client_is_held_to_the_modern_facts_only(self):
        self.write_run("python-modern", self.MODERN)
        code, printed = self.run_check("python-modern", expectations={"python-modern": accepted(self.MODERN)})
        self.assertEqual(code, 0, printed)
        self.assertNotIn("baseline", printed)
        relisted = dict(self.MODERN, listen_missed_change=["clean"])
        reissued = dict(relisted, reissue_duplicate_effect=["duplicate_effect"])
        self.write_run("python-modern", reissued)
        code, printed = self.run_check("python-modern", expectations={}, record=True)
        self.assertEqual(code, 1)
        self.assertIn("the SDK re-issued a cut call", printed)
        self.assertIn("listen_missed_change is ['clean'], not missed_change", printed)

    def test_auto_long_job_must_deliver_everything_in_time(self):
        self.write_run("python", self.KNOWN, progress=80)
        code, printed = self.run_check("python", expectations={"python": accepted(self.KNOWN)})
        self.assertEqual(code, 1)
        self.assertIn("not 1..=81", printed)
        self.write_run("python", self.KNOWN, wall_ms=25_000)
        code, printed = self.run_check("python", expectations={"python": accepted(self.KNOWN)})
        self.assertEqual(code, 1)
        self.assertIn("ms of wall time", printed)

    def read_recorded(self):
        with open(os.path.join(self.record, "expectations.json")) as f:
            return json.load(f)

    def test_recording_counts_what_it_sees_again_and_keeps_other_clients(self):
        self.write_run("python", self.KNOWN)
        before = {"python": accepted(self.KNOWN, seen=2), "typescript": accepted({"baseline": ["clean"]})}
        code, printed = self.run_check("python", expectations=before, record=True)
        self.assertEqual(code, 0, printed)
        written = self.read_recorded()
        self.assertEqual(written["python"], accepted(self.KNOWN, seen=3))
        self.assertEqual(written["typescript"], before["typescript"])
        with open(os.path.join(self.record, "RESULTS.md")) as f:
            results = f.read()
        self.assertIn("| python | behavior_b | silent_gap, cursor_reuse |", results)

    def test_recording_refuses_a_new_outcome_without_a_reason(self):
        # One flaky run used to be accepted for ever: a new outcome was added beside the old.
        self.write_run("python", dict(self.KNOWN, behavior_b=["silent_gap"]))
        code, printed = self.run_check("python", expectations={"python": accepted(self.KNOWN)}, record=True)
        self.assertEqual(code, 1, printed)
        self.assertIn("python/behavior_b: new outcome ['silent_gap']", printed)
        self.assertIn("--accept 'python/behavior_b=WHY'", printed)
        self.assertEqual(self.read_recorded()["python"]["behavior_b"], accepted(self.KNOWN)["behavior_b"])
        # A scenario never recorded needs a reason too.
        code, printed = self.run_check("python", expectations={}, record=True)
        self.assertEqual(code, 1, printed)
        self.assertNotIn("baseline", self.read_recorded().get("python", {}))

    def test_a_new_outcome_is_recorded_with_the_reason_given(self):
        self.write_run("python", dict(self.KNOWN, behavior_b=["silent_gap"]))
        code, printed = self.run_check(
            "python", expectations={"python": accepted(self.KNOWN)}, record=True,
            accept=["python/behavior_b=its resume raced the restart under load"],
        )
        self.assertEqual(code, 0, printed)
        self.assertEqual(self.read_recorded()["python"]["behavior_b"], [
            {"verdicts": ["silent_gap", "cursor_reuse"], "seen": 1, "why": "known"},
            {"verdicts": ["silent_gap"], "seen": 1, "why": "its resume raced the restart under load"},
        ])
        # Wildcards name a new client's scenarios at once.
        code, printed = self.run_check("python", expectations={}, record=True, accept=["python/*=first recording"])
        self.assertEqual(code, 0, printed)
        self.assertEqual(self.read_recorded()["python"]["baseline"][0]["why"], "first recording")

    def test_accept_needs_a_reason_and_record_mode(self):
        self.write_run("python", self.KNOWN)
        with self.assertRaises(SystemExit) as raised:
            self.run_check("python", expectations={}, record=True, accept=["python/behavior_b"])
        self.assertIn("CLIENT/SCENARIO=WHY", str(raised.exception))
        with self.assertRaises(SystemExit):
            self.run_check("python", expectations={}, accept=["python/behavior_b=x"])

    def test_the_recorded_expectations_are_each_a_reasoned_outcome(self):
        with open(os.path.join(self.here, "expectations.json")) as f:
            recorded = json.load(f)
        for client, scenarios in recorded.items():
            for scenario, outcomes in scenarios.items():
                self.assertTrue(outcomes, f"{client}/{scenario}")
                for outcome in outcomes:
                    self.assertLessEqual({"verdicts", "seen", "why"}, set(outcome), f"{client}/{scenario}")
                    self.assertLessEqual(set(outcome), {"verdicts", "seen", "why", "seen_with"}, f"{client}/{scenario}")
                    self.assertTrue(outcome["why"].strip() and outcome["seen"] >= 1, f"{client}/{scenario}")
                    # A scheduling verdict is never part of an accepted outcome: it is counted.
                    optional = check.SCHEDULING.get(client, ())
                    self.assertFalse(set(outcome["verdicts"]) & set(optional), f"{client}/{scenario}")
                    self.assertLessEqual(set(outcome.get("seen_with", {})), set(optional), f"{client}/{scenario}")

    def test_recording_some_clients_keeps_the_other_clients_rows(self):
        self.write_run("python", self.KNOWN)
        self.run_check("python", expectations={}, record=True, accept=["python/*=first"])
        self.write_run("rmcp", dict(self.KNOWN, baseline=["out_of_order"]))
        code, printed = self.run_check("rmcp", expectations=self.read_recorded(), record=True, accept=["rmcp/*=first"])
        self.assertEqual(code, 0, printed)
        with open(os.path.join(self.record, "RESULTS.md")) as f:
            results = f.read()
        self.assertIn("| python | behavior_b | silent_gap, cursor_reuse |", results)
        self.assertIn("| rmcp | baseline | out_of_order |", results)
        self.assertLess(results.index("| python |"), results.index("| rmcp |"))
        self.assertIn("mcp 2.3.0 (examples/clients/python); rmcp 3.11.0", results)
        self.assertEqual(results.count("| python | baseline |"), 1)

    def test_a_scheduling_verdict_comes_and_goes_for_its_client_only(self):
        # rmcp hands each notification to its handler on a task of its own: out_of_order or
        # not, run to run. Its outcomes match with or without it; python's do not.
        runs = dict(self.KNOWN, baseline=["out_of_order"], rmcp_window_gap=["silent_gap", "out_of_order"])
        self.write_run("rmcp", runs)
        expected = accepted(dict(self.KNOWN, rmcp_window_gap=["silent_gap"]))
        code, printed = self.run_check("rmcp", expectations={"rmcp": expected})
        self.assertEqual(code, 0, printed)
        self.write_run("python", runs)
        code, printed = self.run_check("python", expectations={"python": expected})
        self.assertEqual(code, 1, printed)
        self.assertIn("python/rmcp_window_gap", printed)
        self.assertIn("baseline is ['out_of_order'], not clean", printed)
        # What is lost still counts: silent_gap is no scheduling verdict.
        self.write_run("rmcp", dict(runs, rmcp_window_gap=["out_of_order"]))
        code, printed = self.run_check("rmcp", expectations={"rmcp": expected})
        self.assertEqual(code, 1, printed)
        self.assertIn("rmcp/rmcp_window_gap", printed)

    def test_recording_a_scheduling_client_counts_the_verdict_beside_the_outcome(self):
        runs = dict(self.KNOWN, rmcp_window_gap=["silent_gap", "out_of_order"])
        self.write_run("rmcp", runs)
        code, printed = self.run_check("rmcp", expectations={}, record=True, accept=["rmcp/*=first recording"])
        self.assertEqual(code, 0, printed)
        gap = self.read_recorded()["rmcp"]["rmcp_window_gap"]
        self.assertEqual(gap, [{"verdicts": ["silent_gap"], "seen": 1, "why": "first recording", "seen_with": {"out_of_order": 1}}])
        # Seen again without it: the same outcome, one more run; with it, counted again.
        self.write_run("rmcp", dict(runs, rmcp_window_gap=["silent_gap"]))
        code, printed = self.run_check("rmcp", expectations=self.read_recorded(), record=True)
        self.assertEqual(code, 0, printed)
        self.assertEqual(self.read_recorded()["rmcp"]["rmcp_window_gap"][0]["seen"], 2)
        self.assertEqual(self.read_recorded()["rmcp"]["rmcp_window_gap"][0]["seen_with"], {"out_of_order": 1})
        with open(os.path.join(self.record, "RESULTS.md")) as f:
            self.assertIn("| rmcp | rmcp_window_gap | silent_gap |", f.read())

    def test_auto_long_job_of_a_scheduling_client_may_come_in_any_order(self):
        self.write_run("rmcp", self.KNOWN)
        path = os.path.join(self.out, "rmcp.auto.stdout")
        report = {"progress": [2, 1] + list(range(3, 82)), "result": "done", "error": None}
        with open(path, "w") as f:
            f.write(json.dumps(report) + "\n")
        code, printed = self.run_check("rmcp", expectations={"rmcp": accepted(self.KNOWN)})
        self.assertEqual(code, 0, printed)
        self.assertIn("1 swap(s) in the order handed", printed)
        self.write_run("python", self.KNOWN)
        with open(os.path.join(self.out, "python.auto.stdout"), "w") as f:
            f.write(json.dumps(report) + "\n")
        code, printed = self.run_check("python", expectations={"python": accepted(self.KNOWN)})
        self.assertEqual(code, 1, printed)



class HabitTest(unittest.TestCase):
    """call_cut_before_an_id, graded by name, holds each 2025 client to its documented
    `call_stream_without_id` habit: the error its report carries, and when."""

    # CheckTest's helpers, not its tests.
    setUp = CheckTest.setUp
    write_run = CheckTest.write_run
    run_check = CheckTest.run_check
    KNOWN = CheckTest.KNOWN

    def write_habit(self, client, error, wall_ms, kinds=("surfaced_loss",), deleted=None, report=True):
        run = {
            "scenario": "call_cut_before_an_id",
            "verdicts": [{"kind": k, "why": k} for k in kinds],
            "client_report": {"error": error, "result": None} if report else None,
            "wall_ms": wall_ms,
        }
        runs = [run] + write_habit_runs(self.out, client, **getattr(self, "turned", {}))
        with open(os.path.join(self.out, f"{client}.habits.json"), "w") as f:
            json.dump({"command": "x", "scenarios": runs}, f)
        # Its ledger: a DELETE at the end where the SDK's transport sends one (unless
        # `deleted` says otherwise); none at all for a run without a report.
        if report:
            ledgers = os.path.join(self.out, f"{client}-ledgers")
            os.makedirs(ledgers, exist_ok=True)
            deleted = check.DELETES_SESSION[client] if deleted is None else deleted
            answers = [{"method": "Post", "rpc_method": "tools/call", "status": 200}]
            answers += [{"method": "Delete", "status": 200}] if deleted else []
            with open(os.path.join(ledgers, "call_cut_before_an_id.ledger.json"), "w") as f:
                json.dump({"answers": answers}, f)

    # A habit the by-name runs show turned from the SDK's (`write_habit_runs`' keywords).
    turned = {}

    def expect(self, client, kinds=("surfaced_loss",)):
        by_name = {name: ["silent_gap"] for name in HABIT_SCENARIOS}
        return {client: accepted({**self.KNOWN, "call_cut_before_an_id": list(kinds), **by_name})}

    def test_the_typescript_sdk_waits_for_its_request_timeout(self):
        self.write_run("typescript", self.KNOWN)
        self.write_habit("typescript", "call: McpError: MCP error -32001: Request timed out", 60_494)
        code, out = self.run_check("typescript", expectations=self.expect("typescript"))
        self.assertEqual(code, 0, out)
        self.write_habit("typescript", "call: McpError: MCP error -32001: Request timed out", 1_200)
        code, out = self.run_check("typescript", expectations=self.expect("typescript"))
        self.assertEqual(code, 1, out)
        self.assertIn("before its 60 s request timeout", out)

    def test_the_python_sdk_fails_the_call_at_once_with_its_message(self):
        self.write_run("python", self.KNOWN)
        self.write_habit("python", "call: MCPError: SSE stream ended without a response", 1_011, ["clean"])
        code, out = self.run_check("python", expectations=self.expect("python", ["clean"]))
        self.assertEqual(code, 0, out)
        self.write_habit("python", "call: McpError: Request timed out", 60_000, ["clean"])
        code, out = self.run_check("python", expectations=self.expect("python", ["clean"]))
        self.assertEqual(code, 1, out)
        self.assertIn("not one with 'SSE stream ended without a response'", out)
        self.assertIn("not at once", out)

    def test_no_error_is_no_habit_shown(self):
        self.write_run("rmcp", self.KNOWN)
        self.write_habit("rmcp", None, 18, ["clean"])
        code, out = self.run_check("rmcp", expectations=self.expect("rmcp", ["clean"]))
        self.assertEqual(code, 1, out)

    def test_habits_output_that_is_not_json_fails(self):
        self.write_run("python", self.KNOWN)
        with open(os.path.join(self.out, "python.habits.json"), "w") as f:
            f.write("")
        code, out = self.run_check("python", expectations=self.expect("python", ["clean"]))
        self.assertEqual(code, 1, out)
        self.assertIn("the habit scenarios (habits) printed no JSON", out)

class PacedTest(unittest.TestCase):
    """The TypeScript SDK's wall-time request timeout, which grade's compressed clock hides,
    shown by a paced run: it must give the preset's verdict (preset_differences.json), and
    the compressed run must say how long the call waited."""

    setUp = CheckTest.setUp
    write_run = CheckTest.write_run
    run_check = CheckTest.run_check
    KNOWN = CheckTest.KNOWN

    def write_paced(self, kinds, text=None):
        run = {"scenario": "baseline", "verdicts": [{"kind": k, "why": k} for k in kinds],
               "client_report": {"error": "call: McpError: MCP error -32001: Request timed out"}}
        with open(os.path.join(self.out, "typescript.paced.json"), "w") as f:
            f.write(text if text is not None else json.dumps({"command": "x", "scenarios": [run]}))

    def say_compressed(self, wait):
        path = os.path.join(self.out, "typescript.grade.json")
        with open(path) as f:
            graded = json.load(f)
        for run in graded["scenarios"]:
            if run["scenario"] == "baseline":
                run["compressed_wait"] = wait
        with open(path, "w") as f:
            json.dump(graded, f)

    def expectations(self):
        return {"typescript": accepted(self.KNOWN)}

    def test_the_paced_run_gives_the_presets_verdict(self):
        self.write_run("typescript", self.KNOWN)
        self.say_compressed({"call_waited_ms": 1_200_000, "wall_ms": 480})
        self.write_paced(["surfaced_loss"])
        code, out = self.run_check("typescript", expectations=self.expectations())
        self.assertEqual(code, 0, out)
        self.write_paced(["clean"])
        code, out = self.run_check("typescript", expectations=self.expectations())
        self.assertEqual(code, 1, out)
        self.assertIn("baseline at --time-scale 10: ['clean'], not the preset's ['surfaced_loss']", out)

    def test_a_compressed_clean_must_say_how_long_the_call_waited(self):
        self.write_run("typescript", self.KNOWN)
        self.write_paced(["surfaced_loss"])
        code, out = self.run_check("typescript", expectations=self.expectations())
        self.assertEqual(code, 1, out)
        self.assertIn("without saying how long the call waited", out)

    def test_a_paced_run_of_another_scenario_than_paced_names_fails(self):
        self.write_run("typescript", self.KNOWN)
        self.say_compressed({"call_waited_ms": 1_200_000, "wall_ms": 480})
        run = {"scenario": "drop_close", "verdicts": [{"kind": "surfaced_loss", "why": "x"}], "client_report": {}}
        self.write_paced([], text=json.dumps({"command": "x", "scenarios": [run]}))
        code, out = self.run_check("typescript", expectations=self.expectations())
        self.assertEqual(code, 1, out)
        self.assertIn("the paced grade ran 'drop_close', not 'baseline'", out)

    def test_a_paced_run_that_printed_no_json_fails(self):
        self.write_run("typescript", self.KNOWN)
        self.say_compressed({"call_waited_ms": 1_200_000, "wall_ms": 480})
        self.write_paced([], text="")
        code, out = self.run_check("typescript", expectations=self.expectations())
        self.assertEqual(code, 1, out)
        self.assertIn("the paced grade (--time-scale 10) printed no JSON", out)


class CloseTest(unittest.TestCase):
    """Every run in which a 2025 client printed its report holds its transport to its
    documented `on_close`: a DELETE of its session as it exits (Python, rmcp), or none
    (TypeScript)."""

    setUp = CheckTest.setUp
    write_run = CheckTest.write_run
    run_check = CheckTest.run_check
    write_habit = HabitTest.write_habit
    expect = HabitTest.expect
    KNOWN = CheckTest.KNOWN

    def test_a_python_client_that_deleted_nothing_fails(self):
        self.write_run("python", self.KNOWN)
        self.write_habit("python", "SSE stream ended without a response", 900, ["clean"], deleted=False)
        code, out = self.run_check("python", expectations=self.expect("python", ["clean"]))
        self.assertEqual(code, 1, out)
        self.assertIn("call_cut_before_an_id: the client sent no DELETE as it exited (on_close: DeleteSession)", out)

    def test_a_typescript_client_that_deleted_its_session_fails(self):
        self.write_run("typescript", self.KNOWN)
        self.write_habit("typescript", "Request timed out", 60_400, deleted=True)
        code, out = self.run_check("typescript", expectations=self.expect("typescript"))
        self.assertEqual(code, 1, out)
        self.assertIn("the client deleted its session as it exited (on_close: Abandon)", out)

    def test_a_run_without_a_report_is_not_held_to_its_close(self):
        self.write_run("rmcp", self.KNOWN)
        self.write_habit("rmcp", None, 75_000, ["hung"], report=False)
        code, out = self.run_check("rmcp", expectations=self.expect("rmcp", ["hung"]))
        self.assertNotIn("as it exited", out)
        self.assertNotIn("no ledger written", out)

    def test_a_client_whose_call_never_reached_the_server_is_not_held_to_its_close(self):
        # rmcp's transport can die connecting (its initialized notification refused): it
        # then has no session to delete.
        self.write_run("rmcp", self.KNOWN)
        self.write_habit("rmcp", "connect: Transport channel closed", 300, ["misrouted_session"], deleted=False)
        path = os.path.join(self.out, "rmcp-ledgers", "call_cut_before_an_id.ledger.json")
        with open(path, "w") as f:
            json.dump({"answers": [{"method": "Post", "rpc_method": "initialize", "status": 200}]}, f)
        code, out = self.run_check("rmcp", expectations=self.expect("rmcp", ["misrouted_session"]))
        self.assertEqual(code, 0, out)

    def test_a_reported_run_without_its_ledger_fails(self):
        self.write_run("python", self.KNOWN)
        self.write_habit("python", "SSE stream ended without a response", 900, ["clean"])
        os.remove(os.path.join(self.out, "python-ledgers", "call_cut_before_an_id.ledger.json"))
        code, out = self.run_check("python", expectations=self.expect("python", ["clean"]))
        self.assertEqual(code, 1, out)
        self.assertIn("call_cut_before_an_id: no ledger written", out)


class HabitLedgerTest(unittest.TestCase):
    """The scenarios graded by name to show a habit from the ledger: each fact fails when
    the run shows the other value of its habit."""

    setUp = CheckTest.setUp
    write_run = CheckTest.write_run
    run_check = CheckTest.run_check
    write_habit = HabitTest.write_habit
    expect = HabitTest.expect
    KNOWN = CheckTest.KNOWN
    ERRORS = {"typescript": ("call: McpError: MCP error -32001: Request timed out", 60_500),
              "python": ("call: SSE stream ended without a response", 900), "rmcp": ("call: Transport closed", 300)}

    def check(self, client, **turned):
        self.turned = turned
        self.write_run(client, self.KNOWN)
        error, wall = self.ERRORS[client]
        self.write_habit(client, error, wall)
        return self.run_check(client, expectations=self.expect(client))

    def test_each_sdk_as_it_is_passes(self):
        for client in ("typescript", "python", "rmcp"):
            code, out = self.check(client)
            self.assertEqual(code, 0, out)

    def assert_fails(self, client, message, **turned):
        code, out = self.check(client, **turned)
        self.assertEqual(code, 1, out)
        self.assertIn(message, out)

    def test_a_client_that_reinitializes_unlike_its_sdk_fails(self):
        self.assert_fails("typescript", "2 initialize, not the one of a client that keeps the dead id", reinit=True)
        self.assert_fails("rmcp", "no new session after the 404 (reinit: AtOnce)", reinit=False)

    def test_the_forgotten_cursor_is_read_from_the_gets(self):
        self.assert_fails("typescript", "no GET without Last-Event-ID after the resumption was cut", forgets=False)
        self.assert_fails("python", "the cut resumption was not resumed again with its cursor", forgets=True)

    def test_a_refused_standalone_get_must_stay_quiet_and_leave_calls_working(self):
        self.assert_fails("python", "the application was told 'standalone stream gave up'",
                          told="standalone stream gave up")
        self.assert_fails("typescript", "no call answered after the refused GET", later_call=False)

    def test_listing_tools_before_a_result_is_the_python_sdks_alone(self):
        self.assert_fails("python", "without a tools/list (result_check: ListsToolsFirst)", lists=False)
        self.assert_fails("rmcp", "the client listed tools (result_check: None)", lists=True)


class ReadTimeoutTest(unittest.TestCase):
    """The Python SDK's read timeout, set to 1 s by its documented setting and met at a
    pace: the run must show the habits docs/client-habits.md gives it (the cut stream
    resumed, the call given up after two resumptions that brought progress, what the first
    brought handed over twice)."""

    setUp = CheckTest.setUp
    write_run = CheckTest.write_run
    run_check = CheckTest.run_check
    KNOWN = CheckTest.KNOWN

    def check(self):
        return self.run_check("python", expectations={"python": accepted(self.KNOWN)})

    def test_the_run_as_the_sdk_gives_it_passes(self):
        self.write_run("python", self.KNOWN)
        code, out = self.check()
        self.assertEqual(code, 0, out)

    def assert_fails(self, *messages, **run):
        """The read-timeout run written with `run` (write_read_timeout's keywords) fails
        the check with every one of `messages`."""
        self.write_run("python", self.KNOWN)
        write_read_timeout(self.out, "python", **run)
        code, out = self.check()
        self.assertEqual(code, 1, out)
        for message in messages:
            self.assertIn(message, out)

    def test_a_missing_run_fails(self):
        self.write_run("python", self.KNOWN)
        os.remove(os.path.join(self.out, "python.read_timeout.json"))
        code, out = self.check()
        self.assertEqual(code, 1, out)
        self.assertIn("no read-timeout run", out)

    def test_a_run_of_another_scenario_fails(self):
        self.assert_fails("the read-timeout grade ran 'drop_close', not 'baseline'", scenario="drop_close")

    def test_a_client_that_closes_on_its_read_timeout_fails(self):
        # read_timeout_ends: Client: no resumption, the call failed at once.
        self.assert_fails("the call's stream was resumed 0 times with Last-Event-ID, not 2", "no duplicate",
                          resumed=(), kinds=("clean",))

    def test_a_call_that_keeps_resuming_or_is_never_given_up_fails(self):
        self.assert_fails("resumed 4 times", "the call was not given up loudly", resumed=(0, 1, 1, 1), error=None)

    def test_resumptions_that_brought_nothing_show_no_progress_counted(self):
        self.assert_fails("replayed nothing", resumed=(0, 0))


if __name__ == "__main__":
    unittest.main()
