"""The official MCP Python SDK's high-level client (PyPI `mcp`, pinned in requirements.txt),
unmodified and with its default settings, behind the `faultline grade` client contract
(README.md), for the 2026-07-28 scenarios (`faultline grade --era modern`).

`mcp.Client(url)` negotiates the era itself: its default `mode="auto"` probes
`server/discover` and falls back to `initialize` on a 2025 server
(https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning). Whatever the
SDK does by default when a request stream is cut, a listen stream drops or a server
restarts is what gets graded; this file only wires the application's side and prints the
report as the last line of stdout:

- the call (with a progress callback when asked), then `followup_echo` echo calls;
- `lists_tools`: the application keeps its tools list current the way the SDK documents
  (`Client.listen(tools_list_changed=True)`, refetching the list on each event), and lists
  tools (through the SDK's response cache, which honours `ttlMs`) before each call. The
  SDK never listens again by itself; a dropped listen raises `SubscriptionLost` in the
  listening task, which the application reports as its error;
- `use_tasks`: mcp 2.3.0 ships no client for the `io.modelcontextprotocol/tasks`
  extension (only `mcp.client.advertise`, which would claim support it does not have), so
  the call is a plain one and the report says so (`tasks`).

    FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' python client_modern.py URL
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from typing import Any

import anyio
from mcp import Client

report: dict[str, Any] = {
    "progress": [],
    "notifications": [],
    "result": None,
    "error": None,
    "sdk": f"mcp {version('mcp')} (Client, mode auto)",
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


async def keep_tools_current(client: Client, acknowledged: anyio.Event) -> None:
    """The SDK's documented listen loop: refetch the tools list on every change event."""
    try:
        async with client.listen(tools_list_changed=True) as subscription:
            acknowledged.set()
            async for _event in subscription:
                report["list_changes_heard"] = report.get("list_changes_heard", 0) + 1
                await client.list_tools()
        report["listen_ended"] = "gracefully"
    except Exception as e:  # noqa: BLE001 - what the SDK raises is what the app sees
        report["listen_ended"] = f"{type(e).__name__}: {e}"
        fail("listen", e)
    finally:
        acknowledged.set()


async def tool_from_list(client: Client, name: str) -> None:
    """Lists tools (the SDK's cache may answer) and checks `name` is on the list."""
    tools = await client.list_tools()
    names = [t.name for t in tools.tools]
    report.setdefault("listed", []).append(len(names))
    if name not in names:
        raise RuntimeError(f"tool {name!r} is not on the tools list {names}")


async def calls(client: Client, context: dict[str, Any]) -> None:
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    lists_tools = bool(context.get("lists_tools"))
    try:
        if lists_tools:
            await tool_from_list(client, call["tool"])
        result = await client.call_tool(
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
            if lists_tools:
                await tool_from_list(client, "echo")
            result = await client.call_tool("echo", {"text": f"followup {k}"})
            report["followups"].append(first_text(result))
            if result.is_error:
                fail(f"followup {k}", RuntimeError(f"tool error: {first_text(result)}"))
        except Exception as e:  # noqa: BLE001
            report["followups"].append(None)
            fail(f"followup {k}", e)


async def run(url: str, context: dict[str, Any]) -> None:
    if context.get("use_tasks"):
        report["tasks"] = "mcp 2.3.0 has no tasks extension client: a plain call"
    async with Client(url, logging_callback=on_log) as client:
        report["protocol_version"] = client.protocol_version
        async with anyio.create_task_group() as tg:
            if context.get("lists_tools"):
                acknowledged = anyio.Event()
                tg.start_soon(keep_tools_current, client, acknowledged)
                await acknowledged.wait()
            await calls(client, context)
            report["calls_done"] = True
            tg.cancel_scope.cancel()


def main() -> None:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    try:
        anyio.run(run, url, context)
    except BaseException as e:  # noqa: BLE001 - reported, not raised
        if report.pop("calls_done", False):
            report["close_error"] = f"{type(e).__name__}: {e}"  # after the app got everything
        else:
            fail("session", e)
    report.pop("calls_done", None)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
