"""A hand-written MCP Streamable HTTP client (standard library only) that follows the
`faultline grade` client contract (docs/client-contract.md), in two flavours:

  --careful (default)  never loses silently: checks that progress values are contiguous
                       (a gap is an error), ignores duplicate steps, resumes with GET +
                       Last-Event-ID when the call's stream ends or goes quiet without the
                       result, re-initializes and re-issues the call on 404 for its
                       session (and on a 400 to the call when a ping in the session is
                       refused too: a server that never answers 404, as zilla's MCP
                       binding, https://github.com/aklivity/zilla/issues/2525), and
                       reports an error after 5 resumes without the result.
  --broken             the common dedup: after a resume it drops every event whose SSE id
                       is <= the Last-Event-ID it sent. A server whose fresh stream restarts
                       ids at 1 (Behavior A) makes new events look like a replay. After 3
                       resumes without the result it gives up *quietly* (`error: null`).
  --loops              --broken whose resume counter starts again on every stream that
                       ends cleanly, as in https://github.com/modelcontextprotocol/rust-sdk/issues/958:
                       an empty 200 to its cursor makes it resume again with the same
                       Last-Event-ID, for ever (it never reports: `grade` calls it hung, and
                       the ledger shows the loop).
  --late-listen        (with any of the above) opens its standalone GET, without
                       Last-Event-ID, on a second thread only once the call's stream has
                       ended without the result, and resumes after that GET has its
                       answer: the order in which a GET sent before a cut can reach the
                       server after it (a client whose GET races its POST). The GET is
                       not the client's return from the cut; its resumption is.
  --double-listen      (with any of the above) opens its standalone GET right after
                       initialize, then a second one while the first is open, which a
                       server answers 409 Conflict (one standalone stream a session), and
                       keeps its session and the first stream: what the AI SDK
                       (@ai-sdk/mcp) does at times when its first GET races initialize.
  --no-progress        (with any of the above) an application without a progress handler:
                       calls without a progress token and says so in its report
                       (`"supports": {"progress": false}`), so `grade` judges a scenario
                       whose faults are timed by progress `not_applicable`.
  --reorder            (with any of the above) hands the call's progress to the application
                       with its first two values swapped ([2, 1, 3, ...]), as a client that
                       runs each notification handler as its own task can: `out_of_order`.
  --modern             speaks MCP 2026-07-28 instead (no initialize, no session; every POST
                       carries `_meta` and the Mcp-Method/Mcp-Name headers, and a job tool
                       answers on its request stream): a client of the other era when it is
                       graded on the 2025 set (`other_era`). It makes the calls and nothing
                       else: no resume (a 2026-07-28 request stream cannot be resumed).
  --crash              (with any of the above) makes the call, then dies as a Node client
                       with an unsettled top-level await does: exit 13, a line on stderr,
                       no report (`crashed`).
  --bad-report         (with any of the above) makes the call, then prints a summary line
                       that is not JSON as its last line and exits 0 (`bad_report`).
  --invent             (with any of the above) reports what it expected rather than what
                       it got: progress 1..=100 and a result, whatever came (`bad_report`,
                       with the claims the server's ledger rules out).
  --declare-no-progress
                       (with any of the above) handles progress as ever but declares no
                       progress handler in its report: a declaration its own progress
                       values contradict, which does not make a scenario `not_applicable`.
  --resolve-on-cut     (with --never-resume) hands the application an empty result when
                       the call's stream ends without one, as a client that resolves a
                       pending request on stream end does: a result the server never sent.
  --request-timeout-s N
                       (with any of the above) fails a call loudly when its answer has not
                       come N seconds of wall time after it was sent, progress or not, as
                       the TypeScript SDK's request timeout does (60 s by default,
                       DEFAULT_REQUEST_TIMEOUT_MSEC in its protocol layer): under
                       grade's compressed clock it never fires on a long job, under
                       `grade --time-scale` it does.
  --fail-on-cut        (with any of the above) fails the call loudly when its stream ends
                       without the result ("SSE stream ended without a response", as the
                       Python SDK does when a response stream ends before any event id),
                       and exits while the server is still at work on it: the result it
                       gave up on is lost, and the application was told (`surfaced_loss`).
  --also-error         (with any of the above) reports an error besides whatever came (an
                       application that saw an error from elsewhere): with the result in
                       hand, the call did not fail.

It exists to test the grader with a client known to be right and one known to be wrong.
Transport: https://modelcontextprotocol.io/specification/2025-11-25/basic/transports; SSE
parsing after https://html.spec.whatwg.org/multipage/server-sent-events.html, simplified.

    python3 tests/grade/toy_client.py [--careful|--broken|--loops] [--late-listen]
        [--double-listen] [--no-progress] [--reorder] [--modern] [--crash|--bad-report]
        [--invent] [--declare-no-progress] [--resolve-on-cut] [--fail-on-cut] [--also-error] URL
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
from typing import Any, Iterator

PROTOCOL_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"


class Failed(Exception):
    """The call failed in a way the application is told about."""


class SessionGone(Exception):
    """HTTP 404 for the session the client sent: the server no longer knows it."""


class ToyClient:
    def __init__(self, url: str, careful: bool, loops: bool = False, late_listen: bool = False,
                 reorder: bool = False, modern: bool = False) -> None:
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = u.hostname or "127.0.0.1", u.port or 80, u.path or "/"
        self.careful = careful
        self.loops = loops and not careful
        self.late_listen = late_listen
        self.reorder = reorder
        self.held: list[Any] = []  # --reorder: a value not yet handed to the application
        self.modern = modern
        self.never_resume = False  # --never-resume: a stream that ends ends the call, quietly
        self.fail_on_cut = False  # --fail-on-cut: a stream that ends fails the call, loudly
        self.request_timeout_s: float | None = None  # --request-timeout-s: wall seconds a call may take
        self.deadline: float | None = None  # the current call's, on the monotonic clock
        self.method: str | None = None  # --modern: the request's Mcp-Method
        self.name: str | None = None  # --modern: the request's Mcp-Name
        self.listener: threading.Thread | None = None
        self.session: str | None = None
        self.protocol: str | None = None  # sent once initialize has answered
        self.next_id = 0
        self.cursor: str | None = None  # the last SSE id accepted on the current call
        self.drop_upto: int | None = None  # --broken: ids <= this are "already seen"
        self.token: int | None = None  # the first call's progress token
        self.received: list[Any] = []  # progress values the client accepted, in order
        self.total: float | None = None
        self.next_seq: int | None = None
        self.report: dict[str, Any] = {
            "progress": [], "notifications": [], "result": None, "error": None,
            "client": f"toy_client.py --{'careful' if careful else ('loops' if loops else 'broken')}",
            "resumes": [], "followups": [], "dropped_as_seen": 0, "duplicates_ignored": 0,
            "reinitialized": [], "listen_status": None,
        }

    def fail(self, message: str) -> None:
        if self.report["error"] is None:  # the contract wants the first error seen
            self.report["error"] = message

    # ---- HTTP and SSE -------------------------------------------------------------------
    def http(self, method: str, body: Any = None, last_event_id: str | None = None):
        left = None if self.deadline is None else max(0.001, self.deadline - time.monotonic())
        conn = http.client.HTTPConnection(self.host, self.port, timeout=left)
        headers = {"accept": "application/json, text/event-stream", "mcp-session-id": self.session,
                   "content-type": "application/json" if body is not None else None,
                   "mcp-protocol-version": MODERN_VERSION if self.modern else self.protocol,
                   "last-event-id": last_event_id,
                   "mcp-method": self.method if self.modern else None,
                   "mcp-name": self.name if self.modern else None}
        headers = {name: value for name, value in headers.items() if value is not None}
        conn.request(method, self.path, None if body is None else json.dumps(body), headers)
        return conn, conn.getresponse()

    @staticmethod
    def events(resp: http.client.HTTPResponse) -> Iterator[tuple[str, str | None, str]]:
        """(event type, id or None, data) per SSE event, until the stream ends."""
        etype, eid, data = "message", None, []
        while True:
            try:
                raw = resp.readline()
            except (OSError, http.client.HTTPException):
                return  # a reset connection ends the stream like a clean close does
            if not raw:
                return
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:  # a blank line dispatches the event
                if data or eid is not None or etype != "message":
                    yield etype, eid, "\n".join(data)
                etype, eid, data = "message", None, []
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                etype = value
            elif field == "id":
                eid = value
            elif field == "data":
                data.append(value)

    def read(self, conn: http.client.HTTPConnection, resp, rid: int) -> dict | None:
        """What a response carries; returns the answer to `rid`, or None when the stream
        ended or went quiet (`faultline.quiet`) without it."""
        try:
            ctype = resp.getheader("content-type") or ""
            if ctype.startswith("application/json"):
                return self.handle(json.loads(resp.read() or b"null"), rid)
            if not ctype.startswith("text/event-stream"):
                raise Failed(f"HTTP {resp.status} with content-type {ctype!r}")
            for etype, eid, data in self.events(resp):
                self.check_deadline()
                if etype == "faultline.quiet":
                    return None
                if eid is not None:
                    if self.drop_upto is not None and eid.isdigit() and int(eid) <= self.drop_upto:
                        self.report["dropped_as_seen"] += 1
                        print(f"toy: dropped id {eid} as already seen", file=sys.stderr)
                        continue
                    self.cursor = eid
                if etype == "message" and data and (answer := self.handle(json.loads(data), rid)):
                    return answer
            self.check_deadline()
            return None
        finally:
            conn.close()

    def check_deadline(self) -> None:
        """--request-timeout-s: the call has had its time."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise Failed(f"request timed out after {self.request_timeout_s:g} s of wall time")

    def handle(self, msg: Any, rid: int) -> dict | None:
        if not isinstance(msg, dict):
            return None
        params = msg.get("params") or {}
        if msg.get("method") == "notifications/progress" and params.get("progressToken") == self.token:
            self.on_progress(params.get("progress"), params.get("total"))
        elif msg.get("method") == "notifications/message":
            self.on_notification((params.get("data") or {}).get("seq"))
        elif msg.get("id") == rid and ("result" in msg or "error" in msg):
            return msg
        return None

    def on_progress(self, value: Any, total: Any) -> None:
        self.total = total if total is not None else self.total
        seen = self.received
        if not isinstance(value, (int, float)):
            return self.fail(f"progress without a number: {value!r}")
        last = seen[-1] if seen else 0
        if self.careful and value <= last:
            self.report["duplicates_ignored"] += 1  # a replayed or re-issued step
            return
        if self.careful and value != last + 1:
            self.fail(f"progress gap: after {last} came {value}")
        seen.append(value)
        self.hand_progress(value)

    def hand_progress(self, value: Any) -> None:
        """Hands one progress value to the application; --reorder holds the first back
        until the second has been handed over (its handler task ran late)."""
        seen = self.report["progress"]
        if self.reorder and not seen and not self.held:
            self.held.append(value)
            return
        seen.append(value)
        while self.held:
            seen.append(self.held.pop())

    def settle_progress(self) -> None:
        """--reorder: a value still held back reaches the application at the end."""
        while self.held:
            self.report["progress"].append(self.held.pop())

    def on_notification(self, seq: Any) -> None:
        if self.careful and isinstance(seq, int) and self.next_seq is not None:
            if seq < self.next_seq:
                return  # a duplicate: already handed to the application
            if seq > self.next_seq:
                self.fail(f"notification gap: expected seq {self.next_seq}, got {seq}")
        self.report["notifications"].append(seq)
        self.next_seq = seq + 1 if isinstance(seq, int) else self.next_seq

    # ---- MCP ----------------------------------------------------------------------------
    def rpc_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def initialize(self) -> None:
        self.session, self.protocol, self.next_seq = None, None, None
        rid = self.rpc_id()
        info = {"name": "faultline-toy-client", "version": "0.1.0"}
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": info}
        conn, resp = self.http("POST", {"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params})
        self.session = resp.getheader("mcp-session-id")
        answer = self.read(conn, resp, rid)
        if not answer or "result" not in answer:
            raise Failed(f"initialize: HTTP {resp.status}: {answer}")
        self.protocol = answer["result"].get("protocolVersion", PROTOCOL_VERSION)
        conn, resp = self.http("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        resp.read()
        conn.close()

    def call(self, tool: str, arguments: Any, progress: bool) -> dict | None:
        """The answer to one tools/call, or None when --broken gave up quietly."""
        if self.modern:
            try:
                return self.modern_call(tool, arguments, progress)
            except (OSError, http.client.HTTPException) as e:
                raise Failed(f"{tool}: {type(e).__name__}: {e}") from None
        for _ in range(3):
            try:
                return self.attempt(tool, arguments, progress)
            except (OSError, http.client.HTTPException) as e:
                raise Failed(f"{tool}: {type(e).__name__}: {e}") from None
            except SessionGone as gone:
                if not self.careful:
                    raise Failed(str(gone)) from None
                self.report["reinitialized"].append(f"{tool}: {gone}; re-initialized, re-issued")
                self.initialize()
        raise Failed(f"{tool}: the session kept disappearing")

    def attempt(self, tool: str, arguments: Any, progress: bool) -> dict | None:
        rid = self.rpc_id()
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if progress:
            self.token = rid
            params["_meta"] = {"progressToken": rid}
        self.cursor, self.drop_upto = None, None
        if self.request_timeout_s is not None:
            self.deadline = time.monotonic() + self.request_timeout_s
        try:
            return self.attempt_until_answered(tool, rid, params)
        finally:
            self.deadline = None

    def attempt_until_answered(self, tool: str, rid: int, params: dict[str, Any]) -> dict | None:
        conn, resp = self.http("POST", {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
        if resp.status == 400 and self.careful and self.session and not self.modern:
            self.ask_whether_gone(conn, resp, tool)
        self.check_status(conn, resp, f"{tool}: POST")
        answer = self.read(conn, resp, rid)
        limit, resumes = (5 if self.careful else 3), 0
        if answer is None and self.late_listen and self.listener is None:
            self.open_listener()
        while answer is None:
            if self.fail_on_cut:
                raise Failed(f"{tool}: SSE stream ended without a response")
            if self.never_resume:
                return None  # --never-resume: the stream ended, so the call is "done"
            if resumes >= limit or self.cursor is None:
                if not self.careful:
                    return None  # gives up quietly: the bug this mode stands for
                raise Failed(f"{tool}: no result after {resumes} resumes"
                             + ("" if self.cursor else " (no event id to resume from)"))
            sent, resumes = self.cursor, resumes + 1
            if not self.careful and sent.isdigit():
                self.drop_upto = max(self.drop_upto or 0, int(sent))
            conn, resp = self.http("GET", last_event_id=sent)
            self.report["resumes"].append({"last_event_id": sent, "status": resp.status})
            print(f"toy: resume {resumes} with Last-Event-ID {sent}: HTTP {resp.status}", file=sys.stderr)
            if resp.status == 200:
                answer = self.read(conn, resp, rid)
                if self.loops:
                    resumes = 0  # a clean end of stream: "the server is fine, try again"
            elif self.careful:
                self.check_status(conn, resp, f"{tool}: resume with Last-Event-ID {sent}")
            else:
                resp.read()
                conn.close()
        return answer

    def modern_call(self, tool: str, arguments: Any, progress: bool) -> dict | None:
        """--modern: one 2026-07-28 tools/call; the answer, or None when its request stream
        ended without one (it cannot be resumed)."""
        rid = self.rpc_id()
        meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                                "io.modelcontextprotocol/clientCapabilities": {}}
        if progress:
            self.token = rid
            meta["progressToken"] = rid
        self.method, self.name = "tools/call", tool
        params = {"name": tool, "arguments": arguments, "_meta": meta}
        conn, resp = self.http("POST", {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})
        if resp.status != 200:
            body = resp.read().decode("utf-8", "replace")[:200]
            conn.close()
            raise Failed(f"{tool}: HTTP {resp.status} {body}")
        answer = self.read(conn, resp, rid)
        if answer is None:
            raise Failed(f"{tool}: the request stream ended without a response")
        return answer

    def second_listener(self) -> None:
        """--double-listen: a second standalone GET while the first is open; its status
        (409 from a server that allows one stream a session) goes in the report."""
        conn, resp = self.http("GET")
        self.report["second_listen_status"] = resp.status
        resp.read()
        conn.close()
        print(f"toy: second standalone GET answered {resp.status}", file=sys.stderr)

    def open_listener(self) -> None:
        """--late-listen: the standalone GET, on its own thread; returns once it has its
        status line (the server has taken it), and leaves the thread reading its stream."""
        answered = threading.Event()

        def listen() -> None:
            try:
                conn, resp = self.http("GET")
                self.report["listen_status"] = resp.status
                answered.set()
                for _ in self.events(resp):
                    pass  # this client asks for nothing on its listen stream
                conn.close()
            except (OSError, http.client.HTTPException) as e:
                print(f"toy: standalone GET: {type(e).__name__}: {e}", file=sys.stderr)
            finally:
                answered.set()

        self.listener = threading.Thread(target=listen, daemon=True)
        self.listener.start()
        answered.wait()
        print(f"toy: standalone GET answered {self.report['listen_status']}", file=sys.stderr)

    def ask_whether_gone(self, conn, resp, tool: str) -> None:
        """--careful: a 400 to a call naming the session may be a server's way of saying the
        session is gone (one that never answers 404): a ping in the session asks. Refused
        too (400 or 404): the session is gone; answered: the 400 was about the call."""
        body = resp.read().decode("utf-8", "replace")[:200]
        conn.close()
        ping_conn, ping = self.http("POST", {"jsonrpc": "2.0", "id": self.rpc_id(), "method": "ping"})
        ping.read()
        ping_conn.close()
        if ping.status in (400, 404):
            raise SessionGone(f"{tool}: POST: HTTP 400 for session {self.session}, and to a ping in it ({ping.status})")
        raise Failed(f"{tool}: POST: HTTP 400 {body}")

    def check_status(self, conn, resp, what: str) -> None:
        if resp.status == 200:
            return
        body = resp.read().decode("utf-8", "replace")[:200]
        conn.close()
        if resp.status == 404 and self.session:
            raise SessionGone(f"{what}: HTTP 404 for session {self.session}")
        raise Failed(f"{what}: HTTP {resp.status} {body}")

    def text_of(self, what: str, answer: dict | None) -> str | None:
        if answer is None:
            return None
        if "error" in answer:
            e = answer["error"]
            self.fail(f"{what}: JSON-RPC error {e.get('code')}: {e.get('message')}")
            return None
        result = answer["result"]
        text = next((c.get("text") for c in result.get("content", []) if c.get("type") == "text"), None)
        if result.get("isError"):
            self.fail(f"{what}: tool error: {text}")
        return text


def main() -> None:
    flags = sys.argv[1:-1]
    careful = "--broken" not in flags and "--loops" not in flags
    client = ToyClient(sys.argv[-1], careful, loops="--loops" in flags, late_listen="--late-listen" in flags,
                       reorder="--reorder" in flags, modern="--modern" in flags)
    client.never_resume = "--never-resume" in flags
    client.fail_on_cut = "--fail-on-cut" in flags
    if "--request-timeout-s" in flags:
        client.request_timeout_s = float(flags[flags.index("--request-timeout-s") + 1])
    no_progress = "--no-progress" in flags
    if no_progress:
        client.report["supports"] = {"progress": False}
    if client.modern:
        client.report["client"] += " --modern"
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    try:
        if not client.modern:
            client.initialize()
            if "--double-listen" in flags:
                client.open_listener()
                client.second_listener()
        try:
            progress = bool(call.get("progress")) and not no_progress
            answer = client.call(call["tool"], call.get("arguments") or {}, progress)
            client.settle_progress()
            client.report["result"] = client.text_of("call", answer)
            if answer is None and "--resolve-on-cut" in flags:
                client.report["result"] = ""
            last = (client.received or [0])[-1]
            if careful and answer and client.total is not None and last < client.total:
                client.fail(f"call: result after progress {last} of {client.total}")
        except Failed as e:
            client.fail(f"call: {e}")
        for k in range(1, int(context.get("followup_echo") or 0) + 1):
            try:
                answer = client.call("echo", {"text": f"followup {k}"}, False)
                client.report["followups"].append(client.text_of(f"followup {k}", answer))
            except Failed as e:
                client.report["followups"].append(None)
                client.fail(f"followup {k}: {e}")
    except Exception as e:  # noqa: BLE001 - whatever broke, the report says so
        client.fail(f"{type(e).__name__}: {e}")
    client.settle_progress()
    if "--crash" in flags:
        print("toy: Warning: Detected unsettled top-level await", file=sys.stderr, flush=True)
        sys.exit(13)
    if "--invent" in flags:
        client.report["progress"] = list(range(1, 101))
        client.report["result"] = client.report["result"] or "done"
    if "--declare-no-progress" in flags:
        client.report["supports"] = {"progress": False}
    if "--also-error" in flags:
        client.report["error"] = "a warning the application logged as an error"
    if "--bad-report" in flags:
        print(f"done: {len(client.report['progress'])} progress values, result {client.report['result']!r}", flush=True)
        return
    print(json.dumps(client.report), flush=True)


if __name__ == "__main__":
    main()
