"""The real Python SDK client (PyPI `mcp`, pinned in ../requirements.txt) against
`faultline serve`. One scenario per run:

    python py/client.py SCENARIO URL OUT.json

The same scenarios, in the same order of steps, as ../ts/client.mjs (read that file's
comments for what each one does). It records what the application was handed (progress,
notifications, results, errors, hangs) and what went over the wire (every HTTP exchange
with its Last-Event-ID, session id and status; the SSE ids the transport parsed), and
writes it as JSON for check.py.

The only instrumentation of the SDK: an httpx event hook (wire log) and a wrapper around
`StreamableHTTPTransport._handle_sse_event` that notes each SSE id before the SDK handles
the event. Neither changes what the SDK does.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
from importlib.metadata import version
from typing import Any

import anyio
from mcp.client import streamable_http as sh
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

T0 = time.monotonic()


def now_ms() -> int:
    return int((time.monotonic() - T0) * 1000)


record: dict[str, Any] = {
    "client": "python",
    "sdk": f"mcp {version('mcp')}",
    "progress": [],
    "notifications": [],
    "calls": [],
    "transport_errors": [],
    "wire": [],
    "sse_ids": [],
    "steps": [],
}


def note(what: str, **extra: Any) -> None:
    record["steps"].append({"t_ms": now_ms(), "what": what, **extra})


# ---- SDK instrumentation (observation only) ---------------------------------------------
_original_handle_sse_event = sh.StreamableHTTPTransport._handle_sse_event


async def _recording_handle_sse_event(self, sse, *args, **kwargs):  # type: ignore[no-untyped-def]
    if sse.id:
        record["sse_ids"].append(sse.id)
    return await _original_handle_sse_event(self, sse, *args, **kwargs)


sh.StreamableHTTPTransport._handle_sse_event = _recording_handle_sse_event  # type: ignore[method-assign]


async def on_request(request) -> None:  # type: ignore[no-untyped-def]
    entry = {
        "t_ms": now_ms(),
        "method": request.method,
        "last_event_id": request.headers.get("last-event-id"),
        "session": request.headers.get("mcp-session-id"),
        "status": None,
    }
    if request.method == "POST":
        try:
            entry["rpc"] = json.loads(request.content).get("method", "response")
        except Exception:  # noqa: BLE001 - a body we cannot read is just not labelled
            entry["rpc"] = None
    request.extensions["faultline_entry"] = len(record["wire"])
    record["wire"].append(entry)


async def on_response(response) -> None:  # type: ignore[no-untyped-def]
    index = response.request.extensions.get("faultline_entry")
    if index is not None:
        record["wire"][index]["status"] = response.status_code
    # The session the transport uses from now on (the SDK reads the same header).
    if response.headers.get("mcp-session-id"):
        record["session"] = response.headers["mcp-session-id"]


# ---- control API ------------------------------------------------------------------------
BASE = ""


def chaos(path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        f"{BASE}/_chaos/{path}",
        data=data,
        method="GET" if body is None else "POST",
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.load(res)


async def ledger() -> Any:
    """The model's typed ledger, from beside the server's clock and faults in the body."""
    return (await anyio.to_thread.run_sync(chaos, "ledger"))["ledger"]


async def advance(ms: int) -> None:
    r = await anyio.to_thread.run_sync(chaos, "clock/advance", {"ms": ms})
    note(f"advance {ms} ms", now_ms=r["now_ms"])


async def wait_for(what: str, cond, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout_s
    while True:
        if await cond():
            return True
        if time.monotonic() > end:
            note(f"timed out waiting for {what}")
            return False
        await anyio.sleep(0.025)


async def standalone_attached() -> bool:
    l = await ledger()
    return any(a["method"] == "Get" and a["status"] == 200 for a in l["answers"])


async def resumed() -> bool:
    return len((await ledger())["resumptions"]) > 0


# ---- calls ------------------------------------------------------------------------------
class Call:
    def __init__(self, session: ClientSession, tool: str, args: dict[str, Any], progress: bool):
        self.entry: dict[str, Any] = {"tool": tool, "outcome": "pending", "text": None, "error": None}
        record["calls"].append(self.entry)
        self.session, self.tool, self.args, self.progress = session, tool, args, progress
        self.done = anyio.Event()

    async def run(self) -> None:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            record["progress"].append(progress)

        try:
            result = await self.session.call_tool(
                self.tool,
                self.args,
                read_timeout_seconds=600,
                progress_callback=on_progress if self.progress else None,
            )
            self.entry["outcome"] = "tool_error" if result.is_error else "result"
            self.entry["text"] = "".join(getattr(c, "text", "") for c in result.content)
        except Exception as e:  # noqa: BLE001 - what the SDK raises is the finding
            self.entry["outcome"] = "error"
            self.entry["error"] = f"{type(e).__name__}: {e}"
            code = getattr(getattr(e, "error", None), "code", None)
            if code is not None:
                self.entry["error_code"] = code
        finally:
            self.done.set()

    async def settle(self, timeout_s: float) -> None:
        with anyio.move_on_after(timeout_s):
            await self.done.wait()
        if self.entry["outcome"] == "pending":
            self.entry["outcome"] = "hung"


async def scenario_body(name: str, session: ClientSession, tg) -> None:  # type: ignore[no-untyped-def]
    def start(tool: str, args: dict[str, Any], progress: bool = False) -> Call:
        call = Call(session, tool, args, progress)
        tg.start_soon(call.run)
        return call

    if name == "baseline":
        await start("echo", {"text": "hello faultline"}).settle(10)
        await start("long_job", {"steps": 20, "interval_ms": 20}, progress=True).settle(20)
    elif name == "behavior_a":
        job = start("long_job", {"steps": 81, "interval_ms": 60_000}, progress=True)

        async def job_started() -> bool:
            return len((await ledger())["jobs"]) > 0

        await wait_for("the job to start", job_started, 5)
        await advance(41 * 60_000 + 45_000)
        await wait_for("the client to come back", resumed, 15)
        await anyio.sleep(0.2)
        await advance(40 * 60_000)
        await job.settle(5)
    elif name == "behavior_b":
        await wait_for("the standalone GET", standalone_attached, 5)
        await advance(410_000 + 600_000)
        await wait_for("the client to come back", resumed, 15)
        await anyio.sleep(0.3)
        await advance(60_000)
        await anyio.sleep(0.5)
        await start("echo", {"text": "after the restart"}).settle(5)
    elif name == "replay_404_cascade":
        await wait_for("the standalone GET", standalone_attached, 5)
        await advance(240_000)
        await advance(60_000)
        await wait_for("the client to come back", resumed, 15)

        async def replayed() -> bool:
            l = await ledger()
            produced = sum(1 for e in l["events"] if e["payload"]["type"] == "notification")
            return len(record["notifications"]) >= produced

        await wait_for("the replay", replayed, 10)
        await advance(27 * 60_000)
        await anyio.sleep(0.3)
        for i in range(3):
            await start("echo", {"text": f"are we there yet ({i + 1})"}).settle(6)
        await anyio.sleep(1.5)
    elif name == "auto_long_job":
        job = start("long_job", {"steps": 81, "interval_ms": 60_000}, progress=True)
        await job.settle(60)
        record["wall_ms"] = now_ms() - record["connect_started_ms"]
        record["clock_after"] = await anyio.to_thread.run_sync(chaos, "clock")
    else:
        raise SystemExit(f"unknown scenario {name}")


async def main(name: str, url: str) -> None:
    try:
        with anyio.fail_after(90):
            await _main(name, url)
    except TimeoutError:
        record["harness_timeout"] = True


async def _main(name: str, url: str) -> None:
    record["scenario"] = name
    if name == "replay_404_cascade":
        await advance(60_000)  # the client starts at T+1m

    async def on_log(params) -> None:  # type: ignore[no-untyped-def]
        data = params.data if isinstance(params.data, dict) else {}
        # seq counts per session, so the session it came on is part of its name.
        record["notifications"].append({"session": record.get("session"), "seq": data.get("seq")})

    async def on_message(message) -> None:  # type: ignore[no-untyped-def]
        if isinstance(message, Exception):
            record["transport_errors"].append(f"{type(message).__name__}: {message}")

    record["connect_started_ms"] = now_ms()
    http = create_mcp_http_client()
    http.event_hooks["request"].append(on_request)
    http.event_hooks["response"].append(on_response)
    async with http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log, message_handler=on_message) as session:
                init = await session.initialize()
                record["negotiated_protocol"] = init.protocol_version
                note("connected")
                async with anyio.create_task_group() as tg:
                    await scenario_body(name, session, tg)
                    tg.cancel_scope.cancel()


def run() -> None:
    global BASE
    name, url, out = sys.argv[1:4]
    BASE = url.rsplit("/mcp", 1)[0]
    code = 0
    try:
        anyio.run(main, name, url)
    except Exception as e:  # noqa: BLE001 - record, then write what we have
        record["harness_error"] = f"{type(e).__name__}: {e}"
    if record.get("harness_timeout"):
        code = 3
    for c in record["calls"]:
        if c["outcome"] == "pending":
            c["outcome"] = "hung"
    with open(out, "w") as f:
        json.dump(record, f, indent=1)
    sys.exit(code)


if __name__ == "__main__":
    run()
