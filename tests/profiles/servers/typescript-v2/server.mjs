// The official TypeScript SDK v2 server (@modelcontextprotocol/server 2.4.0) for the profile
// probe (tests/profiles/run.sh), served as v2 serves by default: `createMcpHandler(factory)`
// with no options, whose 2025-era traffic goes to the stateless legacy fallback (no session,
// GET and DELETE answered 405). The handler is web-standard (fetch-shaped); this file
// adapts node:http to it in a few lines instead of pulling in another package. Tools: echo
// {text} and long_job {steps, interval_ms} as `faultline serve` has them. Prints
// `listening on http://ADDR/mcp` as `faultline serve` does.
import http from 'node:http';
import { Readable } from 'node:stream';
import * as z from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';

const port = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 0);

const factory = () => {
  const server = new McpServer({ name: 'profile-probe-ts-v2', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its text argument.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('long_job', {
    description: 'Runs `steps` steps, one every `interval_ms`, with progress.',
    inputSchema: z.object({ steps: z.number().int().optional(), interval_ms: z.number().int().optional() }),
  }, async ({ steps = 3, interval_ms = 100 }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let step = 1; step <= steps; step++) {
      await new Promise((r) => setTimeout(r, interval_ms));
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
      }
    }
    return { content: [{ type: 'text', text: `long_job finished ${steps} steps` }] };
  });
  return server;
};

const handler = createMcpHandler(factory);

const server = http.createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = ['GET', 'HEAD'].includes(req.method) ? undefined : Buffer.concat(chunks);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal: ac.signal });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) Readable.fromWeb(response.body).on('error', () => res.destroy()).pipe(res);
    else res.end();
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
    else res.destroy();
  }
});
server.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`);
});
