"""Tests of toy_client.py against a scripted stand-in server (standard library only).

The live faultline server plays the incidents; these scripts pin the toy client's own
behaviour, including the paths today's server cannot reach on demand: the `faultline.quiet`
marker, a progress gap, 404 for the session. Each test runs the client the way
`faultline grade` does (URL as the last argument, FAULTLINE_CONTEXT set) and reads the
last line of its stdout.

    python3 -m unittest tests/grade/test_toy_client.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CLIENT = Path(__file__).with_name("toy_client.py")
LONG_JOB = {"call": {"tool": "long_job", "arguments": {"steps": 5}, "progress": True}, "followup_echo": 0}


def progress(token, value, total=5):
    params = {"progressToken": token, "progress": value, "total": total}
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def result(rid, text="done"):
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}}


def log(seq):
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": {"seq": seq}}}


QUIET = ("faultline.quiet", None, None)


class Script(BaseHTTPRequestHandler):
    """Answers initialize itself; `on_call(server, rid, token)` and `on_resume(server,
    last_event_id)` return (status, [(event type, id, message)]) for the rest. A stream
    ends after its events, except after QUIET, where it stays open until the client
    closes it (a client that ignored the marker would wait forever: the run times out)."""

    protocol_version = "HTTP/1.0"  # the body ends when the connection closes

    def log_message(self, *args):  # keep the test output clean
        pass

    def send(self, status, events=None, body=None, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if events is None:
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body).encode() if body is not None else b"")
            return
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for etype, eid, message in events:
            lines = [f"event: {etype}"] if etype != "message" else []
            lines += [f"id: {eid}"] if eid is not None else []
            lines += [f"data: {json.dumps(message) if message is not None else ''}", "", ""]
            self.wfile.write("\n".join(lines).encode())
        if events and events[-1] == QUIET:
            # Quiet is not the end: the stream stays open until the client acts (closes it).
            self.wfile.flush()
            self.rfile.read()

    def do_POST(self):
        s = self.server
        msg = json.loads(self.rfile.read(int(self.headers["content-length"])))
        s.posts.append((msg.get("method"), self.headers.get("mcp-session-id"), self.headers.get("mcp-protocol-version")))
        if msg.get("method") == "initialize":
            s.sessions += 1
            info = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "script", "version": "0"}}
            body = {"jsonrpc": "2.0", "id": msg["id"], "result": info}
            return self.send(200, body=body, headers=[("mcp-session-id", f"s{s.sessions}")])
        if "id" not in msg:
            return self.send(202)
        sid = self.headers.get("mcp-session-id")
        if s.expire_session:
            s.expire_session = False
            s.dead.add(sid)
        if sid != f"s{s.sessions}" or sid in s.dead:
            # 404, or what a server that never answers 404 says (zilla: 400).
            return self.send(s.dead_status, body={"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "session expired"}})
        if msg.get("method") == "ping":
            return self.send(200, body={"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        params = msg["params"]
        if params["name"] == "echo":
            return self.send(200, body=result(msg["id"], params["arguments"]["text"]))
        status, events = s.on_call(s, msg["id"], params.get("_meta", {}).get("progressToken"))
        self.send(status, events=events)

    def do_GET(self):
        s = self.server
        s.resumes.append(self.headers.get("last-event-id"))
        status, events = s.on_resume(s, self.headers.get("last-event-id"))
        self.send(status, events=events)


class ToyClientTest(unittest.TestCase):
    def run_client(self, mode, on_call, on_resume=lambda s, c: (200, [QUIET]), context=LONG_JOB, expire_session=False,
                   dead_status=404):
        server = ThreadingHTTPServer(("127.0.0.1", 0), Script)
        server.sessions, server.posts, server.resumes = 0, [], []
        server.dead, server.dead_status = set(), dead_status
        server.on_call, server.on_resume, server.expire_session = on_call, on_resume, expire_session
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            env = {**os.environ, "FAULTLINE_SCENARIO": "script", "FAULTLINE_CONTEXT": json.dumps(context)}
            url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
            out = subprocess.run([sys.executable, str(CLIENT), mode, url], env=env, capture_output=True,
                                 text=True, check=True, timeout=60)
        finally:
            server.shutdown()
            server.server_close()
        self.server = server
        return json.loads(out.stdout.strip().splitlines()[-1])

    # Behavior A: the stream resets after id 3; the resume gets a fresh stream that counts
    # from 1 again and carries progress 4, 5 and the result; later resumes find nothing.
    def behavior_a(self, mode):
        fresh = []

        def on_call(s, rid, token):
            fresh.append(lambda: [("message", 1, progress(token, 4)), ("message", 2, progress(token, 5)), ("message", 3, result(rid))])
            return 200, [("message", i, progress(token, i)) for i in (1, 2, 3)] + [("message", None, log(0))]

        return self.run_client(mode, on_call, lambda s, c: (200, fresh.pop()() if fresh else [QUIET]))

    def test_careful_takes_the_fresh_stream_as_new_events(self):
        report = self.behavior_a("--careful")
        self.assertEqual(report["progress"], [1, 2, 3, 4, 5])
        self.assertEqual((report["result"], report["error"], report["notifications"]), ("done", None, [0]))
        self.assertEqual(self.server.resumes, ["3"])

    def test_broken_drops_the_fresh_stream_and_gives_up_quietly(self):
        report = self.behavior_a("--broken")
        self.assertEqual(report["progress"], [1, 2, 3])
        self.assertEqual((report["result"], report["error"]), (None, None))
        self.assertEqual(report["dropped_as_seen"], 3)
        self.assertEqual(self.server.resumes, ["3", "3", "3"])

    def test_careful_reports_a_progress_gap_broken_does_not(self):
        def on_call(s, rid, token):
            return 200, [("message", i, progress(token, v)) for i, v in ((1, 1), (2, 2), (3, 4), (4, 5))] + [("message", 5, result(rid))]

        careful = self.run_client("--careful", on_call)
        self.assertIn("progress gap: after 2 came 4", careful["error"])
        self.assertEqual((careful["progress"], careful["result"]), ([1, 2, 4, 5], "done"))
        broken = self.run_client("--broken", on_call)
        self.assertEqual((broken["progress"], broken["error"]), ([1, 2, 4, 5], None))

    def steps(self, s, rid, token):
        return 200, [("message", i, progress(token, i)) for i in range(1, 6)] + [("message", 6, result(rid))]

    def test_reorder_swaps_the_first_two_values_it_hands_over_and_checks_the_order_it_read(self):
        report = self.run_client("--reorder", self.steps)
        self.assertEqual(report["progress"], [2, 1, 3, 4, 5])
        self.assertEqual((report["result"], report["error"]), ("done", None))

    def test_no_progress_sends_no_token_and_says_so(self):
        tokens = []

        def on_call(s, rid, token):
            tokens.append(token)
            return 200, [("message", 1, result(rid))]

        report = self.run_client("--no-progress", on_call)
        self.assertEqual(tokens, [None])
        self.assertEqual(report["supports"], {"progress": False})
        self.assertEqual((report["progress"], report["result"], report["error"]), ([], "done", None))

    def test_careful_reports_progress_missing_before_the_result(self):
        def on_call(s, rid, token):
            return 200, [("message", 1, progress(token, 1)), ("message", 2, result(rid))]

        report = self.run_client("--careful", on_call)
        self.assertEqual(report["error"], "call: result after progress 1 of 5")

    def test_careful_ignores_replayed_steps(self):
        def on_call(s, rid, token):
            return 200, [("message", 1, progress(token, 1)), ("message", 2, progress(token, 2))]

        def on_resume(s, cursor):  # a server that replays from the start, not after the cursor
            return 200, [("message", i, progress(s.token, i)) for i in (1, 2, 3, 4, 5)] + [("message", 6, result(s.rid))]

        def remember(s, rid, token):
            s.rid, s.token = rid, token
            return on_call(s, rid, token)

        report = self.run_client("--careful", remember, on_resume)
        self.assertEqual((report["progress"], report["error"], report["duplicates_ignored"]), ([1, 2, 3, 4, 5], None, 2))

    def test_careful_errors_after_five_resumes_broken_gives_up_silently_after_three(self):
        def on_call(s, rid, token):
            return 200, [("message", 1, progress(token, 1)), QUIET]

        careful = self.run_client("--careful", on_call)
        self.assertEqual(careful["error"], "call: long_job: no result after 5 resumes")
        self.assertEqual(len(self.server.resumes), 5)
        broken = self.run_client("--broken", on_call)
        self.assertEqual((broken["result"], broken["error"]), (None, None))
        self.assertEqual(len(self.server.resumes), 3)

    def test_careful_reinitializes_on_404_and_reissues_the_call(self):
        def on_call(s, rid, token):
            return 200, [("message", i, progress(token, i)) for i in range(1, 6)] + [("message", 6, result(rid))]

        careful = self.run_client("--careful", on_call, expire_session=True)
        self.assertEqual((careful["result"], careful["error"], len(careful["reinitialized"])), ("done", None, 1))
        self.assertEqual([p[:2] for p in self.server.posts if p[0] == "tools/call"], [("tools/call", "s1"), ("tools/call", "s2")])
        broken = self.run_client("--broken", on_call, expire_session=True)
        self.assertIn("HTTP 404", broken["error"])

    def test_careful_asks_with_a_ping_on_a_400_and_reinitializes_only_when_the_session_is_gone(self):
        def on_call(s, rid, token):
            return 200, [("message", i, progress(token, i)) for i in range(1, 6)] + [("message", 6, result(rid))]

        # A server that answers a dead session 400 (zilla): the ping is refused too.
        careful = self.run_client("--careful", on_call, expire_session=True, dead_status=400)
        self.assertEqual((careful["result"], careful["error"], len(careful["reinitialized"])), ("done", None, 1))
        self.assertIn("and to a ping in it (400)", careful["reinitialized"][0])
        self.assertEqual([p[:2] for p in self.server.posts if p[0] in ("tools/call", "ping")],
                         [("tools/call", "s1"), ("ping", "s1"), ("tools/call", "s2")])
        # A 400 about the call itself: the session answers the ping, the call fails loudly.
        careful = self.run_client("--careful", lambda s, rid, token: (400, None))
        self.assertIn("HTTP 400", careful["error"])
        self.assertEqual(careful["reinitialized"], [])
        # --broken asks nothing: the 400 is the call's error.
        broken = self.run_client("--broken", on_call, expire_session=True, dead_status=400)
        self.assertIn("HTTP 400", broken["error"])
        self.assertNotIn("ping", [p[0] for p in self.server.posts])

    def test_json_answers_follow_ups_and_headers(self):
        context = {"call": {"tool": "echo", "arguments": {"text": "hi"}}, "followup_echo": 2}
        report = self.run_client("--careful", None, context=context)
        self.assertEqual((report["result"], report["followups"], report["error"]), ("hi", ["followup 1", "followup 2"], None))
        methods = [p for p in self.server.posts]
        self.assertEqual(methods[0], ("initialize", None, None))
        self.assertEqual(methods[1], ("notifications/initialized", "s1", "2025-11-25"))
        self.assertEqual({p[1:] for p in methods[1:]}, {("s1", "2025-11-25")})


if __name__ == "__main__":
    unittest.main()
