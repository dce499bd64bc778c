"""The official MCP Python SDK client (PyPI `mcp`, pinned in requirements.txt), unmodified
and with its default settings, behind the `faultline grade` client contract (README.md).

Whatever the SDK does by default about reconnection and resumption is what gets graded,
so this file only wires the application's side (progress and logging callbacks, the call,
the follow-ups) and prints the report as the last line of stdout.

    FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' python client.py [--sse-read-timeout-s S] URL

`--sse-read-timeout-s S` sets one documented setting instead of its default: the read
timeout of the HTTP client the transport streams SSE with (`http_client=` built by the
SDK's own `create_mcp_http_client`, whose default is `MCP_DEFAULT_SSE_READ_TIMEOUT`, 300 s),
so that a graded run can show what the SDK does when it fires without waiting 5 minutes.
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_TIMEOUT, create_mcp_http_client

report: dict[str, Any] = {
    "progress": [],
    "notifications": [],
    "result": None,
    "error": None,
    "sdk": f"mcp {version('mcp')}",
    "scenario": os.environ.get("FAULTLINE_SCENARIO"),
    "followups": [],
}


def fail(what: str, e: BaseException) -> None:
    """Keeps the first error seen: that is what the contract's `error` means."""
    if report["error"] is None:
        report["error"] = f"{what}: {type(e).__name__}: {e}"


def first_text(result: Any) -> str | None:
    return next((c.text for c in result.content if getattr(c, "type", None) == "text"), None)


async def on_log(params: Any) -> None:
    data = params.data if isinstance(params.data, dict) else {}
    report["notifications"].append(data.get("seq"))


async def on_progress(progress: float, total: float | None, message: str | None) -> None:
    # The SDK hands floats; 3.0 is printed as 3, as the server sent it.
    report["progress"].append(int(progress) if float(progress).is_integer() else progress)


async def run(url: str, context: dict[str, Any], sse_read_timeout_s: float | None) -> None:
    if sse_read_timeout_s is None:
        await session_run(url, context, None)
        return
    timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=sse_read_timeout_s)
    async with create_mcp_http_client(timeout=timeout) as http_client:
        await session_run(url, context, http_client)


async def session_run(url: str, context: dict[str, Any], http_client: Any) -> None:
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    async with streamable_http_client(url, http_client=http_client) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            try:
                result = await session.call_tool(
                    call["tool"],
                    call.get("arguments") or {},
                    progress_callback=on_progress if call.get("progress") else None,
                )
                report["result"] = first_text(result)
                if result.is_error:
                    fail("call", RuntimeError(f"tool error: {report['result']}"))
            except Exception as e:  # noqa: BLE001 - what the SDK raises is what the app sees
                fail("call", e)
            for k in range(1, int(context.get("followup_echo") or 0) + 1):
                try:
                    result = await session.call_tool("echo", {"text": f"followup {k}"})
                    report["followups"].append(first_text(result))
                    if result.is_error:
                        fail(f"followup {k}", RuntimeError(f"tool error: {first_text(result)}"))
                except Exception as e:  # noqa: BLE001
                    report["followups"].append(None)
                    fail(f"followup {k}", e)
            report["calls_done"] = True


def main() -> None:
    url = sys.argv[-1]
    args = sys.argv[1:-1]
    sse_read_timeout_s = None
    if args[:1] == ["--sse-read-timeout-s"] and len(args) == 2:
        sse_read_timeout_s = float(args[1])
    elif args:
        sys.exit(f"usage: client.py [--sse-read-timeout-s S] URL (got {args})")
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    try:
        anyio.run(run, url, context, sse_read_timeout_s)
    except BaseException as e:  # noqa: BLE001 - reported, not raised
        if report.pop("calls_done", False):
            report["close_error"] = f"{type(e).__name__}: {e}"  # after the app got everything
        else:
            fail("session", e)
    report.pop("calls_done", None)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
