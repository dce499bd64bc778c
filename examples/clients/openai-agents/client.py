"""The OpenAI Agents SDK's MCP client (PyPI `openai-agents`, pinned in requirements.txt with the
`mcp` it brings), unmodified and with its default settings, behind the `faultline grade`
client contract (docs/client-contract.md).

`MCPServerStreamableHttp(params={"url": URL})`, `connect()`, then `call_tool(name, arguments)`:
what an agent does with a tool of this server (the Agents SDK calls it through the same
method). Its defaults are graded as they are: a 5 s `ClientSession` read timeout
(`client_session_timeout_seconds`), no retries (`max_retry_attempts=0`). With `mcp` 2.x it
opens its session the way `mcp` 2.x does (probing `server/discover`), so against faultline's
dual-era server it speaks 2026-07-28, and it has no option to speak 2025: grade it with
`--era modern`.

- `call_tool` takes no progress callback, so the report says so (`supports`): grade owes it
  no progress, and the scenarios timed by progress are `not_applicable`;
- logging messages come through the server's `message_handler`, which the application uses
  to record each `notifications/message`.

    FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' python client.py URL
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from typing import Any

import anyio
from agents.mcp import MCPServerStreamableHttp

report: dict[str, Any] = {
    "progress": [],
    "notifications": [],
    "result": None,
    "error": None,
    "supports": {"progress": False},
    "sdk": f"openai-agents {version('openai-agents')} (mcp {version('mcp')})",
    "scenario": os.environ.get("FAULTLINE_SCENARIO"),
    "followups": [],
}


def fail(what: str, e: BaseException) -> None:
    """Keeps the first error seen: that is what the contract's `error` means."""
    if report["error"] is None:
        report["error"] = f"{what}: {type(e).__name__}: {e}"


def first_text(result: Any) -> str | None:
    return next((c.text for c in result.content if getattr(c, "type", None) == "text"), None)


async def on_message(message: Any) -> None:
    """Every server message the session hands on; logging messages are recorded."""
    notification = getattr(message, "root", message)
    if getattr(notification, "method", None) == "notifications/message":
        data = getattr(notification.params, "data", None)
        report["notifications"].append(data.get("seq") if isinstance(data, dict) else None)


async def run(url: str, context: dict[str, Any]) -> None:
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    server = MCPServerStreamableHttp(params={"url": url}, message_handler=on_message)
    try:
        await server.connect()
    except Exception as e:  # noqa: BLE001
        fail("connect", e)
        return
    try:
        try:
            result = await server.call_tool(call["tool"], call.get("arguments") or {})
            report["result"] = first_text(result)
            if result.isError if hasattr(result, "isError") else result.is_error:
                fail("call", RuntimeError(f"tool error: {report['result']}"))
        except Exception as e:  # noqa: BLE001 - what the SDK raises is what the app sees
            fail("call", e)
        for k in range(1, int(context.get("followup_echo") or 0) + 1):
            try:
                result = await server.call_tool("echo", {"text": f"followup {k}"})
                report["followups"].append(first_text(result))
            except Exception as e:  # noqa: BLE001
                report["followups"].append(None)
                fail(f"followup {k}", e)
        report["calls_done"] = True
    finally:
        await server.cleanup()


def main() -> None:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    try:
        anyio.run(run, url, context)
    except BaseException as e:  # noqa: BLE001 - reported, not raised
        if report.pop("calls_done", False):
            report["close_error"] = f"{type(e).__name__}: {e}"
        else:
            fail("session", e)
    report.pop("calls_done", None)
    print(json.dumps(report, default=str), flush=True)


if __name__ == "__main__":
    main()
