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


def grade_json(kinds_by_scenario, lost_silently=True):
    return {
        "command": "x",
        "lost_silently": lost_silently,
        "scenarios": [
            {"scenario": s, "verdicts": [{"kind": k, "why": f"{s} {k}"} for k in kinds]}
            for s, kinds in kinds_by_scenario.items()
        ],
    }


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.record = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)
        self.addCleanup(shutil.rmtree, self.record)
        self.here = os.path.dirname(os.path.abspath(check.__file__))

    def write_run(self, client, kinds, exit_code=1, progress=81, wall_ms=400):
        with open(os.path.join(self.out, f"{client}.grade.json"), "w") as f:
            json.dump(grade_json(kinds, lost_silently=exit_code == 1), f)
        with open(os.path.join(self.out, f"{client}.grade.exit"), "w") as f:
            f.write(f"{exit_code}\n")
        report = {"progress": list(range(1, progress + 1)), "result": "done", "error": None}
        with open(os.path.join(self.out, f"{client}.auto.stdout"), "w") as f:
            f.write("log line\n" + json.dumps(report) + "\n")
        with open(os.path.join(self.out, f"{client}.auto.wall_ms"), "w") as f:
            f.write(f"{wall_ms}\n")

    def run_check(self, *clients, expectations=None, record=False):
        argv = ["check.py", self.out, *clients]
        if record:
            argv += ["--record", self.record]
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
        code, printed = self.run_check("python", expectations={"python": self.KNOWN})
        self.assertEqual(code, 0, printed)

    def test_a_verdict_that_differs_from_the_expectation_fails(self):
        self.write_run("python", self.KNOWN)
        expected = dict(self.KNOWN, behavior_b=["silent_gap"])
        code, printed = self.run_check("python", expectations={"python": expected})
        self.assertEqual(code, 1)
        self.assertIn("python/behavior_b", printed)

    def test_any_of_several_recorded_outcomes_passes(self):
        self.write_run("python", self.KNOWN)
        both = [["silent_gap"], ["silent_gap", "cursor_reuse"]]
        code, printed = self.run_check("python", expectations={"python": dict(self.KNOWN, behavior_b=both)})
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
        code, printed = self.run_check("python-modern", expectations={"python-modern": self.MODERN})
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
        code, printed = self.run_check("python", expectations={"python": self.KNOWN})
        self.assertEqual(code, 1)
        self.assertIn("not 1..=81", printed)
        self.write_run("python", self.KNOWN, wall_ms=25_000)
        code, printed = self.run_check("python", expectations={"python": self.KNOWN})
        self.assertEqual(code, 1)
        self.assertIn("ms of wall time", printed)

    def test_recording_writes_expectations_and_results_and_keeps_other_clients(self):
        self.write_run("python", self.KNOWN)
        code, printed = self.run_check(
            "python", expectations={"typescript": {"baseline": ["clean"]}}, record=True
        )
        self.assertEqual(code, 0, printed)
        with open(os.path.join(self.record, "expectations.json")) as f:
            written = json.load(f)
        self.assertEqual(written["python"], self.KNOWN)
        self.assertEqual(written["typescript"], {"baseline": ["clean"]})
        with open(os.path.join(self.record, "RESULTS.md")) as f:
            results = f.read()
        self.assertIn("| python | behavior_b | silent_gap, cursor_reuse |", results)
        # A second outcome is recorded beside the first, not instead of it.
        self.write_run("python", dict(self.KNOWN, behavior_b=["silent_gap"]))
        with open(os.path.join(self.record, "expectations.json")) as f:
            recorded = json.load(f)
        code, printed = self.run_check("python", expectations=recorded, record=True)
        with open(os.path.join(self.record, "expectations.json")) as f:
            written = json.load(f)
        self.assertEqual(written["python"]["behavior_b"], [["silent_gap", "cursor_reuse"], ["silent_gap"]])


if __name__ == "__main__":
    unittest.main()
