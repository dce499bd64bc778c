"""The official Python SDK (PyPI mcp 2.3.0) Streamable HTTP server for the profile probe
(tests/profiles/run.sh): MCPServer's streamable_http_app with its defaults (SSE responses,
30-minute session idle timeout), served by uvicorn. With --store, one in-memory event store
is passed to the session manager, as python-sdk's example server does
(examples/servers/simple-streamablehttp in
https://github.com/modelcontextprotocol/python-sdk): that example store is not shipped in
the wheel, so ExampleEventStore below behaves as it does (uuid4 ids, the last 100 events of
each stream kept, an unknown or evicted id answered with None). Tools: echo {text} and
long_job {steps, interval_ms} as `faultline serve` has them. Prints
`listening on http://ADDR/mcp` as `faultline serve` does.
"""

import asyncio
import socket
import sys
from collections import deque
from uuid import uuid4

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

MAX_EVENTS_PER_STREAM = 100


class ExampleEventStore(EventStore):
    def __init__(self) -> None:
        self.streams: dict[str, deque] = {}
        self.index: dict[str, tuple[str, object]] = {}

    async def store_event(self, stream_id, message):
        event_id = str(uuid4())
        stream = self.streams.setdefault(stream_id, deque(maxlen=MAX_EVENTS_PER_STREAM))
        if len(stream) == MAX_EVENTS_PER_STREAM:
            self.index.pop(stream[0][0], None)
        stream.append((event_id, message))
        self.index[event_id] = (stream_id, message)
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback):
        if last_event_id not in self.index:
            return None
        stream_id, _ = self.index[last_event_id]
        found = False
        for event_id, message in list(self.streams.get(stream_id, ())):
            if found and message is not None:
                await send_callback(EventMessage(message, event_id))
            elif event_id == last_event_id:
                found = True
        return stream_id


mcp = MCPServer("profile-probe-python")


@mcp.tool(description="Returns its text argument.")
async def echo(text: str) -> str:
    return text


@mcp.tool(description="Runs `steps` steps, one every `interval_ms`, with progress.")
async def long_job(ctx: Context, steps: int = 3, interval_ms: int = 100) -> str:
    for step in range(1, steps + 1):
        await asyncio.sleep(interval_ms / 1000)
        await ctx.report_progress(step, steps)
    return f"long_job finished {steps} steps"


def main() -> None:
    store = ExampleEventStore() if "--store" in sys.argv else None
    port = next((int(a) for a in sys.argv[1:] if a.isdigit()), 0)
    app = mcp.streamable_http_app(event_store=store)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
