#!/usr/bin/env python3
"""A black-box probe of an MCP Streamable HTTP server (2025-11-25, sessions, SSE resumption).

It walks one fixed sequence of raw-HTTP steps (initialize, the standalone GET, a tool call
over SSE, resumption with `Last-Event-ID` into a live call, into a finished call, past an
evicted window, with an unknown, a malformed and another session's cursor; bad requests;
DELETE and what follows it) and prints one normalised row per step, so that the rows of two
servers can be compared cell by cell (tests/profiles/run.sh compares real SDK servers with
`faultline serve --profile NAME`).

What legitimately differs between two servers that behave alike is normalised away:

* event ids are reduced to their shape (`int`, `idx/req`, `uuid`, `stream_ms_rand`, ...);
* progress values of a resumed stream are said relative to the cursor's own value
  (`cursor`: the cursor's event again, `next`: the one after it, `gap`: later), and whether
  the run reaches the job's last step (`end`);
* timing is absorbed by the probe's pacing (a cut call is resumed while it still runs, a
  finished one long after its result) and by reading each stream until it ends or has been
  quiet for a while (`open`).

The server needs the tools `faultline serve` has: `echo {text}` and
`long_job {steps, interval_ms}` with one `notifications/progress` per step.

Usage: probe.py URL [--json FILE]. Standard library only.
"""

import http.client
import json
import re
import socket
import sys
import time
import urllib.parse

PROTOCOL = "2025-11-25"
ACCEPT_BOTH = "application/json, text/event-stream"
#: How long a stream may stay quiet after what the step waits for before it counts as `open`.
LINGER_S = 0.6
#: The longest any one stream is read.
STREAM_DEADLINE_S = 4.0


class Probe:
    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host = parts.hostname
        self.port = parts.port or 80
        self.path = parts.path or "/mcp"
        self.next_id = 1

    # ---- raw HTTP --------------------------------------------------------------------
    def open(self, method, body=None, session=None, accept=ACCEPT_BOTH, last_event_id=None,
             version=True, raw_body=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=STREAM_DEADLINE_S)
        headers = {}
        if accept is not None:
            headers["Accept"] = accept
        if session is not None:
            headers["Mcp-Session-Id"] = session
        if version and session is not None:
            headers["MCP-Protocol-Version"] = PROTOCOL
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        data = None
        if raw_body is not None:
            data = raw_body.encode()
        elif body is not None:
            data = json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, self.path, body=data, headers=headers)
        resp = conn.getresponse()
        return conn, resp

    def request_body(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        return rid, msg

    def call_job(self, steps, interval_ms):
        return self.request_body("tools/call", {
            "name": "long_job",
            "arguments": {"steps": steps, "interval_ms": interval_ms},
            "_meta": {"progressToken": f"probe-{self.next_id}"},
        })


# ---- reading and normalising ---------------------------------------------------------
class Stream:
    """An SSE response read frame by frame, with deadlines."""

    def __init__(self, conn, resp):
        self.conn, self.resp = conn, resp
        self.buf = b""
        self.frames = []
        self.ended = False

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            self.conn.sock.settimeout(remaining)
            chunk = self.resp.read1(65536)
        except (socket.timeout, TimeoutError):
            return False
        except (http.client.HTTPException, OSError, ValueError, AttributeError):
            self.ended = True
            return False
        if not chunk:
            self.ended = True
            return False
        self.buf += chunk.replace(b"\r\n", b"\n")
        return True

    def next_frame(self, deadline):
        while b"\n\n" not in self.buf:
            if self.ended or not self._fill(deadline):
                return None
        raw, self.buf = self.buf.split(b"\n\n", 1)
        frame = {"id": None, "data": None, "retry": False, "comment": False}
        data = []
        for line in raw.decode("utf-8", "replace").split("\n"):
            if line.startswith(":"):
                frame["comment"] = True
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                frame["id"] = value
            elif field == "data":
                data.append(value)
            elif field == "retry":
                frame["retry"] = True
        if data:
            frame["data"] = "\n".join(data)
        if frame["comment"] and frame["data"] is None and frame["id"] is None:
            return self.next_frame(deadline)  # keep-alive comments carry nothing
        self.frames.append(frame)
        return frame

    def read(self, until=None, linger=LINGER_S, stop_after=None):
        """Reads frames until `until(frame)` holds (then lingers for the end of the stream),
        until the stream ends, or until it has been quiet for `linger` seconds when no
        `until` is given. `stop_after(frame)` stops reading at once (the probe cuts)."""
        hard = time.monotonic() + STREAM_DEADLINE_S
        quiet = time.monotonic() + linger if until is None else hard
        while True:
            frame = self.next_frame(min(hard, quiet))
            if frame is None:
                return
            if stop_after and stop_after(frame):
                return
            if until is not None and until(frame):
                quiet = time.monotonic() + linger
                until = None
            elif until is None:
                quiet = time.monotonic() + linger

    def close(self):
        try:
            self.conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.conn.close()


def message(frame):
    if not frame["data"]:
        return None
    try:
        return json.loads(frame["data"])
    except ValueError:
        return "unparsable"


def is_result(rid):
    def check(frame):
        m = message(frame)
        return isinstance(m, dict) and m.get("id") == rid and ("result" in m or "error" in m)
    return check


def progress_of(frame):
    m = message(frame)
    if isinstance(m, dict) and m.get("method") == "notifications/progress":
        value = m.get("params", {}).get("progress")
        return int(value) if isinstance(value, float) and value.is_integer() else value
    return None


def id_shape(event_id):
    if event_id is None:
        return None
    if re.fullmatch(r"\d+", event_id):
        return "int"
    if re.fullmatch(r"\d+/\d+", event_id):
        return "idx/req"
    uuid = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    if re.fullmatch(uuid, event_id):
        return "uuid"
    if re.fullmatch(rf"(?:{uuid}|_GET_stream)_\d+_[0-9a-z]+", event_id):
        return "stream_ms_rand"
    if re.fullmatch(r"[A-Za-z0-9]+_\d+", event_id):
        return "stream_idx"
    return "other"


def describe_frames(frames, rid=None, cursor_progress=None, total=None):
    """The normalised frame sequence and id shapes of a stream."""
    tokens, shapes = [], []
    run = []
    last = [cursor_progress]  # the progress value the next run is said relative to

    def flush():
        if not run:
            return
        contiguous = all(b == a + 1 for a, b in zip(run, run[1:]))
        before = last[0]
        if before is None:
            start = str(run[0])
        elif run[0] == before:
            start = "cursor" if before == cursor_progress else "again"
        elif run[0] == before + 1:
            start = "next"
        elif run[0] > before + 1:
            start = "gap"
        else:
            start = "before"
        last[0] = run[-1]
        end = "end" if total is not None and run[-1] == total else "part"
        tokens.append(f"progress[{start}..{end}{'' if contiguous else ',unordered'}]")
        run.clear()

    for frame in frames:
        shape = id_shape(frame["id"]) or "none"
        if shape not in shapes:
            shapes.append(shape)
        p = progress_of(frame)
        if p is not None:
            run.append(p)
            continue
        flush()
        m = message(frame)
        if m is None:
            tokens.append("prime+retry" if frame["retry"] else "prime")
        elif m == "unparsable":
            tokens.append("unparsable")
        elif "method" in m:
            tokens.append(("request:" if "id" in m else "notify:") + m["method"])
        elif "error" in m:
            code = m["error"].get("code") if isinstance(m["error"], dict) else None
            tokens.append(f"error({code})" if m.get("id") == rid else f"foreign-error({code})")
        else:
            tokens.append("result" if m.get("id") == rid else "foreign-result")
    flush()
    return " ".join(tokens) or "-", ",".join(shapes) if frames else "-"


def body_class(resp, raw):
    ctype = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
    if not raw.strip():
        return "empty"
    if ctype == "application/json" or raw.lstrip().startswith((b"{", b"[")):
        try:
            value = json.loads(raw)
        except ValueError:
            return "json(unparsable)"
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            return f"jsonrpc-error({value['error'].get('code')})"
        if isinstance(value, dict) and "result" in value:
            return "jsonrpc-result"
        if isinstance(value, dict) and "error" in value:
            return "json-error"
        return "json"
    return "text"


def row(step, resp, stream=None, raw=b"", rid=None, cursor_progress=None, total=None):
    r = {"step": step, "status": resp.status,
         "sid": "+" if resp.getheader("Mcp-Session-Id") else "-"}
    if stream is not None:
        r["body"] = "sse"
        r["frames"], r["ids"] = describe_frames(stream.frames, rid, cursor_progress, total)
        r["end"] = "ended" if stream.ended else "open"
    else:
        r["body"] = body_class(resp, raw)
        r["frames"], r["ids"], r["end"] = "-", "-", "-"
    return r


def is_sse(resp):
    ctype = (resp.getheader("Content-Type") or "").split(";")[0].strip().lower()
    return resp.status == 200 and ctype == "text/event-stream"


def mutate(event_id):
    """An id of the same shape that the server never issued."""
    if event_id is None or id_shape(event_id) == "int":
        return "999999"
    if id_shape(event_id) == "idx/req":
        return "999999/999999"
    changed = re.sub(r"[0-9]", "9", re.sub(r"[a-f]", "e", event_id))
    return changed if changed != event_id else event_id + "9"


# ---- the steps -------------------------------------------------------------------------
class Run:
    def __init__(self, url):
        self.p = Probe(url)
        self.rows = []
        self.open_streams = []

    def exchange(self, step, method, body=None, rid=None, **kw):
        """One request read to its end (or until it has been quiet): its row."""
        conn, resp = self.p.open(method, body=body, **kw)
        if is_sse(resp):
            s = Stream(conn, resp)
            s.read(until=is_result(rid) if rid is not None else None)
            s.close()
            r = row(step, resp, stream=s, rid=rid)
        else:
            raw = resp.read()
            conn.close()
            r = row(step, resp, raw=raw)
        self.rows.append(r)
        return resp, r

    def initialize(self, step):
        rid, body = self.p.request_body("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "faultline-profile-probe", "version": "1"},
        })
        resp, _ = self.exchange(step, "POST", body, rid=rid)
        session = resp.getheader("Mcp-Session-Id")
        conn, resp = self.p.open("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 session=session)
        raw = resp.read()
        conn.close()
        self.rows.append(row(step + "_initialized", resp, raw=raw))
        return session

    def resume(self, step, session, cursor, cursor_progress, total, rid):
        conn, resp = self.p.open("GET", session=session, accept="text/event-stream",
                                 last_event_id=cursor)
        if is_sse(resp):
            s = Stream(conn, resp)
            s.read(until=is_result(rid) if rid is not None else None)
            s.close()
            r = row(step, resp, stream=s, rid=rid, cursor_progress=cursor_progress, total=total)
        else:
            raw = resp.read()
            conn.close()
            r = row(step, resp, raw=raw)
        self.rows.append(r)

    def cut_call(self, session, steps, interval_ms):
        """A job call read up to its first progress event, then cut by the client: the
        cursor (that event's id, if it had one) and its progress value."""
        rid, body = self.p.call_job(steps, interval_ms)
        conn, resp = self.p.open("POST", body, session=session)
        if not is_sse(resp):
            resp.read()
            conn.close()
            return rid, None, None
        s = Stream(conn, resp)
        s.read(stop_after=lambda f: progress_of(f) is not None)
        s.close()
        first = next((f for f in s.frames if progress_of(f) is not None), None)
        if first is None:
            return rid, None, None
        return rid, first["id"], progress_of(first)

    def run(self):
        p = self.p
        a = self.initialize("init")
        rid, body = p.request_body("tools/list")
        self.exchange("tools_list", "POST", body, rid=rid, session=a)

        # The standalone GET stream, and a second one while it is open.
        conn, resp = p.open("GET", session=a, accept="text/event-stream")
        first_get = Stream(conn, resp) if is_sse(resp) else None
        if first_get:
            first_get.read(linger=0.4)
            self.rows.append(row("get", resp, stream=first_get))
        else:
            self.rows.append(row("get", resp, raw=resp.read()))
            conn.close()
        self.exchange("get_second", "GET", session=a, accept="text/event-stream")
        if first_get:
            first_get.close()
        time.sleep(0.2)

        # A whole call over SSE: its ids are the cursors into a finished call.
        rid, body = p.call_job(3, 50)
        conn, resp = p.open("POST", body, session=a)
        done_cursor, done_progress, done_rid = None, None, rid
        if is_sse(resp):
            s = Stream(conn, resp)
            s.read(until=is_result(rid))
            s.close()
            self.rows.append(row("call", resp, stream=s, rid=rid, total=3))
            first = next((f for f in s.frames if progress_of(f) is not None), None)
            if first is not None:
                done_cursor, done_progress = first["id"], progress_of(first)
        else:
            self.rows.append(row("call", resp, raw=resp.read()))
            conn.close()

        # Resumption into a call that still runs: cut after its first progress, resumed
        # while the second is produced (steps 250 ms apart).
        rid, cursor, cprog = self.cut_call(a, 4, 250)
        time.sleep(0.3)
        self.resume("resume_live", a, cursor or "1", cprog or 0, 4, rid)

        # Resumption into the call finished above.
        self.resume("resume_finished", a, done_cursor or "1", done_progress or 0, 3, done_rid)

        # A cursor that fell out of a bounded window: 40 steps 25 ms apart, away 700 ms.
        rid, cursor, cprog = self.cut_call(a, 40, 25)
        time.sleep(0.7)
        self.resume("resume_evicted", a, cursor or "1", cprog or 0, 40, rid)
        time.sleep(0.5)

        self.resume("resume_unknown", a, mutate(done_cursor), 0, None, None)
        self.resume("resume_malformed", a, "not a cursor!", 0, None, None)

        # Another session presents the first session's cursor.
        b = self.initialize("init_other")
        self.resume("resume_other_session", b, done_cursor or "1", done_progress or 0, 3,
                    done_rid)

        # Requests the server should refuse.
        rid, body = p.request_body("tools/list")
        self.exchange("no_session", "POST", body, rid=rid)
        rid, body = p.request_body("tools/list")
        self.exchange("unknown_session", "POST", body, rid=rid, session="faultline-probe-unknown")
        self.exchange("get_unknown_session", "GET", session="faultline-probe-unknown",
                      accept="text/event-stream")
        self.exchange("get_no_session", "GET", accept="text/event-stream")
        rid, body = p.request_body("tools/list")
        self.exchange("accept_json_only", "POST", body, rid=rid, session=a, accept="application/json")
        rid, body = p.request_body("tools/list")
        self.exchange("accept_any", "POST", body, rid=rid, session=a, accept="*/*")
        self.exchange("malformed_json", "POST", raw_body="{not json", session=a)
        rid, body = p.request_body("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
        self.exchange("echo", "POST", body, rid=rid, session=a)

        # DELETE, and the deleted session afterwards.
        self.exchange("delete", "DELETE", session=a, accept=None)
        rid, body = p.request_body("tools/list")
        self.exchange("post_deleted", "POST", body, rid=rid, session=a)
        self.resume("get_deleted", a, done_cursor or "1", 0, None, None)
        self.exchange("delete_other", "DELETE", session=b, accept=None)
        return self.rows


COLUMNS = ["step", "status", "body", "frames", "ids", "end", "sid"]


def table(rows):
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in COLUMNS}
    lines = ["  ".join(c.ljust(widths[c]) for c in COLUMNS)]
    for r in rows:
        lines.append("  ".join(str(r[c]).ljust(widths[c]) for c in COLUMNS).rstrip())
    return "\n".join(lines)


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    rows = Run(argv[1]).run()
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
