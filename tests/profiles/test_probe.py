"""Unit tests of the profile probe's normalisation and of the step-by-step comparison
(standard library only: python3 -m unittest tests/profiles/test_probe.py)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from compare import compare  # noqa: E402
from probe import describe_frames, id_shape, mutate  # noqa: E402


def frame(data, event_id=None, retry=False):
    return {"id": event_id, "data": data, "retry": retry, "comment": False}


def progress(n, event_id=None):
    return frame('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":%s}}' % n,
                 event_id)


def result(rid, event_id=None):
    return frame('{"jsonrpc":"2.0","id":%d,"result":{}}' % rid, event_id)


class IdShapes(unittest.TestCase):
    def test_each_sdk_spelling_has_its_shape(self):
        self.assertEqual(id_shape("41"), "int")
        self.assertEqual(id_shape("3/1"), "idx/req")
        self.assertEqual(id_shape("0b4f2a3c-9d1e-4f00-8a7b-123456789abc"), "uuid")
        self.assertEqual(
            id_shape("0b4f2a3c-9d1e-4f00-8a7b-123456789abc_1767225600250_k3j9x"), "stream_ms_rand")
        self.assertEqual(id_shape("_GET_stream_1767225600250_k3j9x"), "stream_ms_rand")
        self.assertEqual(id_shape(None), None)
        self.assertEqual(id_shape("not a cursor!"), "other")

    def test_a_mutated_cursor_keeps_its_shape_and_changes(self):
        for cursor in ["41", "3/1", "0b4f2a3c-9d1e-4f00-8a7b-123456789abc"]:
            changed = mutate(cursor)
            self.assertNotEqual(changed, cursor)
            self.assertEqual(id_shape(changed), id_shape(cursor))


class Frames(unittest.TestCase):
    def test_progress_is_said_relative_to_the_cursor(self):
        frames = [progress(2, "5"), progress(3, "6"), result(7, "7")]
        self.assertEqual(describe_frames(frames, 7, cursor_progress=1, total=3),
                         ("progress[next..end] result", "int"))
        again = [progress(1, "4")] + frames
        self.assertEqual(describe_frames(again, 7, cursor_progress=1, total=3)[0],
                         "progress[cursor..end] result")
        gap = [progress(3, "6"), result(7, "7")]
        self.assertEqual(describe_frames(gap, 7, cursor_progress=1, total=3)[0],
                         "progress[gap..end] result")

    def test_priming_retry_and_foreign_results_are_named(self):
        frames = [frame("", "1", retry=True), progress(1, "2"), result(9, "3")]
        self.assertEqual(describe_frames(frames, 7, total=1),
                         ("prime+retry progress[1..end] foreign-result", "int"))
        self.assertEqual(describe_frames([], 7), ("-", "-"))


class Comparison(unittest.TestCase):
    def test_a_step_matches_only_when_every_cell_does(self):
        row = {"step": "get", "status": 200, "body": "sse", "frames": "-", "ids": "-",
               "end": "open", "sid": "+"}
        other = dict(row, sid="-")
        self.assertEqual(compare([row], [dict(row)]), (1, 1, []))
        matched, total, diffs = compare([row], [other])
        self.assertEqual((matched, total), (0, 1))
        self.assertEqual(diffs, [("get", {"sid": ("+", "-")})])


if __name__ == "__main__":
    unittest.main()
