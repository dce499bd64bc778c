"""fastmcp's `Client` (PyPI `fastmcp`, pinned in requirements.txt), unmodified and with its
default settings, behind the `faultline grade` client contract (docs/client-contract.md).

Whatever fastmcp does by default about reconnection, resumption and era negotiation is what
gets graded; this file only wires the application's side and prints the report as the last
line of stdout:

- `Client(url, log_handler=..., message_handler=...)`: the URL makes fastmcp pick its
  Streamable HTTP transport; its default `mode="auto"` probes `server/discover` and, against
  faultline's dual-era server, speaks 2026-07-28 (grade it with `--era modern`). With
  `--legacy` the application passes `mode="legacy"` (the plain 2025 `initialize`), fastmcp's
  documented way to speak 2025 (grade it on the default set);
- the call (`call_tool(..., progress_handler=...)` when asked, `raise_on_error=False`: a tool
  error is the application's to report), then `followup_echo` echo calls;
- `lists_tools`: fastmcp offers list changes through its `MessageHandler`
  (`on_tool_list_changed`), which the application uses to refetch the list; fastmcp opens no
  `subscriptions/listen` of its own, so nothing is heard unless the server sends it anyway.
  The application lists tools before each call;
- `use_tasks`: a plain call (fastmcp's client has no call that asks for a task).

    FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' python client.py [--legacy] URL
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.client.messages import MessageHandler

LEGACY = "--legacy" in sys.argv[1:]
report: dict[str, Any] = {
    "progress": [],
    "notifications": [],
    "result": None,
    "error": None,
    "sdk": f"fastmcp {version('fastmcp')} (mcp {version('mcp')}, mode {'legacy' if LEGACY else 'auto'})",
    "scenario": os.environ.get("FAULTLINE_SCENARIO"),
    "followups": [],
}


def fail(what: str, e: BaseException) -> None:
    """Keeps the first error seen: that is what the contract's `error` means."""
    if report["error"] is None:
        report["error"] = f"{what}: {type(e).__name__}: {e}"


def first_text(result: Any) -> str | None:
    return next((c.text for c in result.content if getattr(c, "type", None) == "text"), None)


async def on_log(message: Any) -> None:
    data = message.data if isinstance(message.data, dict) else {}
    report["notifications"].append(data.get("seq"))


async def on_progress(progress: float, total: float | None, message: str | None) -> None:
    report["progress"].append(int(progress) if float(progress).is_integer() else progress)


class App(MessageHandler):
    """Refetches the tools list when fastmcp says it changed."""

    client: Client | None = None

    async def on_tool_list_changed(self, notification: Any) -> None:
        report["list_changes_heard"] = report.get("list_changes_heard", 0) + 1
        if self.client is not None:
            try:
                await self.client.list_tools()
            except Exception as e:  # noqa: BLE001
                fail("tools list refresh", e)


async def tool_from_list(client: Client, name: str) -> None:
    tools = await client.list_tools()
    report.setdefault("listed", []).append(len(tools))
    if name not in [t.name for t in tools]:
        raise RuntimeError(f"tool {name!r} is not on the tools list")


async def run(url: str, context: dict[str, Any]) -> None:
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    lists_tools = bool(context.get("lists_tools"))
    if context.get("use_tasks"):
        report["tasks"] = "fastmcp's Client asks for no task: a plain call"
    app = App()
    options: dict[str, Any] = {"log_handler": on_log, "message_handler": app}
    if LEGACY:
        options["mode"] = "legacy"
    client = Client(url, **options)
    app.client = client
    async with client:
        report["protocol_version"] = getattr(client, "protocol_version", None)
        try:
            if lists_tools:
                await tool_from_list(client, call["tool"])
            result = await client.call_tool(
                call["tool"],
                call.get("arguments") or {},
                progress_handler=on_progress if call.get("progress") else None,
                raise_on_error=False,
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
                result = await client.call_tool("echo", {"text": f"followup {k}"}, raise_on_error=False)
                report["followups"].append(first_text(result))
                if result.is_error:
                    fail(f"followup {k}", RuntimeError(f"tool error: {first_text(result)}"))
            except Exception as e:  # noqa: BLE001
                report["followups"].append(None)
                fail(f"followup {k}", e)
        report["calls_done"] = True


def main() -> None:
    url = [a for a in sys.argv[1:] if a != "--legacy"][-1]
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    try:
        anyio.run(run, url, context)
    except BaseException as e:  # noqa: BLE001 - reported, not raised
        if report.pop("calls_done", False):
            report["close_error"] = f"{type(e).__name__}: {e}"  # after the app got everything
        else:
            fail("session", e)
    report.pop("calls_done", None)
    print(json.dumps(report, default=str), flush=True)


if __name__ == "__main__":
    main()
