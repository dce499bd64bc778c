"""langchain-mcp-adapters (PyPI `langchain-mcp-adapters`, pinned in requirements.txt with the
`mcp` it requires), unmodified and used as its README shows, behind the `faultline grade`
client contract (docs/client-contract.md).

`MultiServerMCPClient({"faultline": {"url": URL, "transport": "streamable_http"}})`, then
`get_tools()` and `tool.ainvoke(arguments)`: the README's basic usage, which starts a new
MCP session for each tool call (and one to list the tools). Progress and logging messages
come through the client's `Callbacks(on_progress=..., on_logging_message=...)`. The library
requires `mcp` 1.x, which speaks 2025-11-25 only: grade it on the default set. Whatever it
(and the `mcp` it pins) does about reconnection and resumption is what gets graded; this
file only wires the application's side and prints the report as the last line of stdout.

    FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' python client.py URL
"""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from typing import Any

import anyio
from langchain_mcp_adapters.callbacks import Callbacks, CallbackContext
from langchain_mcp_adapters.client import MultiServerMCPClient

report: dict[str, Any] = {
    "progress": [],
    "notifications": [],
    "result": None,
    "error": None,
    "sdk": f"langchain-mcp-adapters {version('langchain-mcp-adapters')} (mcp {version('mcp')})",
    "scenario": os.environ.get("FAULTLINE_SCENARIO"),
    "followups": [],
}
recording_progress = False


def fail(what: str, e: BaseException) -> None:
    """Keeps the first error seen: that is what the contract's `error` means."""
    if report["error"] is None:
        report["error"] = f"{what}: {type(e).__name__}: {e}"


def text_of(content: Any) -> str | None:
    """What `tool.ainvoke` returns: a string, or a list of content blocks."""
    if isinstance(content, str):
        return content
    for block in content or []:
        if isinstance(block, str):
            return block
        if isinstance(block, dict) and block.get("type") == "text":
            return block.get("text")
    return None


async def on_log(params: Any, context: CallbackContext) -> None:
    data = params.data if isinstance(params.data, dict) else {}
    report["notifications"].append(data.get("seq"))


async def on_progress(progress: float, total: float | None, message: str | None, context: CallbackContext) -> None:
    if recording_progress:
        report["progress"].append(int(progress) if float(progress).is_integer() else progress)


async def run(url: str, context: dict[str, Any]) -> None:
    global recording_progress
    call = context.get("call") or {"tool": "echo", "arguments": {"text": "hello"}}
    client = MultiServerMCPClient(
        {"faultline": {"url": url, "transport": "streamable_http"}},
        callbacks=Callbacks(on_logging_message=on_log, on_progress=on_progress),
    )
    tools = {t.name: t for t in await client.get_tools()}
    try:
        recording_progress = bool(call.get("progress"))
        report["result"] = text_of(await tools[call["tool"]].ainvoke(call.get("arguments") or {}))
    except Exception as e:  # noqa: BLE001 - what the library raises is what the app sees
        fail("call", e)
    finally:
        recording_progress = False
    for k in range(1, int(context.get("followup_echo") or 0) + 1):
        try:
            text = text_of(await tools["echo"].ainvoke({"text": f"followup {k}"}))
            report["followups"].append(text)
        except Exception as e:  # noqa: BLE001
            report["followups"].append(None)
            fail(f"followup {k}", e)


def main() -> None:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("FAULTLINE_CONTEXT") or "{}")
    try:
        anyio.run(run, url, context)
    except BaseException as e:  # noqa: BLE001 - reported, not raised
        fail("session", e)
    print(json.dumps(report, default=str), flush=True)


if __name__ == "__main__":
    main()
