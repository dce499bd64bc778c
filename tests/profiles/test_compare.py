"""Unit tests of the step-by-step comparison of the SDK profiles with their real servers
(standard library only: python3 -m unittest tests/profiles/test_compare.py). The probe's own
normalisation is tested where it lives, in crates/probe."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare import closest, compare  # noqa: E402


class Comparison(unittest.TestCase):
    def test_a_step_matches_only_when_every_cell_does(self):
        row = {"step": "get", "status": 200, "body": "sse", "frames": "-", "ids": "-",
               "end": "open", "sid": "+"}
        other = dict(row, sid="-")
        self.assertEqual(compare([row], [dict(row)]), (1, 1, []))
        matched, total, diffs = compare([row], [other])
        self.assertEqual((matched, total), (0, 1))
        self.assertEqual(diffs, [("get", {"sid": ("+", "-")})])

    def test_a_step_the_profile_never_took_differs(self):
        row = {"step": "get", "status": 200, "body": "sse", "frames": "-", "ids": "-",
               "end": "open", "sid": "+"}
        matched, total, diffs = compare([row], [])
        self.assertEqual((matched, total), (0, 1))
        self.assertEqual(diffs[0][1]["status"], (200, "(missing)"))

    def test_a_raced_cell_matches_only_among_the_values_seen(self):
        row = {"step": "resume", "status": 200, "body": "sse", "frames": "progress[next..end]",
               "ids": "-", "end": "open", "sid": "+"}
        raced = dict(row, frames="progress[gap..end]")
        races = {"resume": {"column": "frames",
                            "seen": ["progress[next..end]", "progress[gap..end]"]}}
        self.assertEqual(compare([raced], [row], races), (1, 1, []))
        self.assertEqual(compare([raced], [row])[0], 0, "without the race listed it differs")
        unseen = dict(row, frames="progress[before..end]")
        self.assertEqual(compare([unseen], [row], races)[0], 0, "a value never seen differs")
        other_column = {"resume": {"column": "ids", "seen": ["-", "uuid"]}}
        self.assertEqual(compare([raced], [row], other_column)[0], 0)

    def test_the_closest_profile_is_the_probes_first(self):
        probed = {"profiles": [{"profile": "rmcp-3.11"}, {"profile": "ts-2.4"}]}
        self.assertEqual(closest(probed), "rmcp-3.11")


if __name__ == "__main__":
    unittest.main()
