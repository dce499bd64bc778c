// The official TypeScript SDK 1.32.2 server for the profile probe (tests/profiles/run.sh),
// routed as the SDK's own example does (src/examples/server/simpleStreamableHttp.ts in
// https://github.com/modelcontextprotocol/typescript-sdk, shipped in the npm package as
// dist/esm/examples/server/simpleStreamableHttp.js): one transport per session, unknown
// session 404 -32001, no session and not initialize 400 -32000, GET/DELETE without a
// session 400 in plain text. `--store` gives each session the SDK's example
// InMemoryEventStore (imported from the package, not copied); without it the transport has
// no event store. Tools: echo {text} and long_job {steps, interval_ms} as `faultline serve`
// has them. Prints `listening on http://ADDR/mcp` as `faultline serve` does.
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';

const withStore = process.argv.includes('--store');
const port = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 0);

const getServer = () => {
  const server = new McpServer({ name: 'profile-probe-ts', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('long_job', {
    description: 'Runs `steps` steps, one every `interval_ms`, with progress.',
    inputSchema: { steps: z.number().int().optional(), interval_ms: z.number().int().optional() },
  }, async ({ steps = 3, interval_ms = 100 }, extra) => {
    const token = extra._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      await new Promise((r) => setTimeout(r, interval_ms));
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
      }
    }
    return { content: [{ type: 'text', text: `long_job finished ${steps} steps` }] };
  });
  return server;
};

const app = createMcpExpressApp();
const sessions = new Map();

app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  try {
    const transport = sessionId ? sessions.get(sessionId) : undefined;
    if (transport) {
      await transport.handleRequest(req, res, req.body);
    } else if (!sessionId && isInitializeRequest(req.body)) {
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        ...(withStore ? { eventStore: new InMemoryEventStore() } : {}),
        onsessioninitialized: (sid) => sessions.set(sid, t),
      });
      t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
      await getServer().connect(t);
      await t.handleRequest(req, res, req.body);
    } else if (sessionId) {
      res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    } else {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null });
    }
  } catch (error) {
    if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
  }
});

const sessionRoute = async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  if (!sessionId) { res.status(400).send('Missing session ID'); return; }
  const transport = sessions.get(sessionId);
  if (!transport) { res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }); return; }
  await transport.handleRequest(req, res);
};
app.get('/mcp', sessionRoute);
app.delete('/mcp', sessionRoute);

const listener = app.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${listener.address().port}/mcp`);
});
