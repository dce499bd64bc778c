// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client, pinned in
// package.json), unmodified but for one option, behind the `faultline grade` client contract
// (../README.md), for the 2026-07-28 scenarios (`faultline grade --era modern`).
//
// The one option: `versionNegotiation: { mode: 'auto' }`. The SDK's default is 'legacy' (the
// plain 2025 initialize, no probe), which would grade a 2025 client; 'auto' probes
// `server/discover` and falls back to initialize on a 2025 server
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning). Everything
// else is the SDK's default, so whatever it does when a request stream is cut, a listen
// drops or a server restarts is what gets graded. This file only wires the application:
//
// - the call (`onprogress` when asked), then `followup_echo` echo calls;
// - `lists_tools`: the application keeps its tools list current the way the SDK offers
//   (`listChanged.tools`, which auto-opens a `subscriptions/listen` on a 2026-07-28
//   connection and refetches the list on each change), watches that subscription's
//   `closed` and reports an unexpected end ('remote') as its error (the SDK never listens
//   again by itself), and lists tools (through the SDK's response cache) before each call;
// - `use_tasks`: client 2.4.0 ships no client for the `io.modelcontextprotocol/tasks`
//   extension, so the call is a plain one and the report says so (`tasks`).
//
//   FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' node client.mjs URL
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const url = process.argv[process.argv.length - 1];
const context = JSON.parse(process.env.FAULTLINE_CONTEXT ?? '{}');
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url)),
).version;

const report = {
  progress: [],
  notifications: [],
  result: null,
  error: null,
  sdk: `@modelcontextprotocol/client ${sdkVersion} (versionNegotiation auto)`,
  scenario: process.env.FAULTLINE_SCENARIO ?? null,
  followups: [],
};
const fail = (what, e) => {
  report.error ??= `${what}: ${e?.constructor?.name ?? 'Error'}: ${e?.message ?? e}`;
};
const firstText = (result) => (result.content ?? []).find((c) => c.type === 'text')?.text ?? null;

const listsTools = Boolean(context.lists_tools);
if (context.use_tasks) report.tasks = '@modelcontextprotocol/client 2.4.0 has no tasks extension client: a plain call';

const options = {
  // Not the SDK's default ('legacy'): without it the client never speaks 2026-07-28.
  versionNegotiation: { mode: 'auto' },
};
if (listsTools) {
  options.listChanged = {
    tools: {
      onChanged: (error) => {
        if (error) fail('tools list refresh', error);
        else report.list_changes_heard = (report.list_changes_heard ?? 0) + 1;
      },
    },
  };
}
const client = new Client({ name: 'faultline-grade-typescript-modern', version: '0.1.0' }, options);
client.setNotificationHandler('notifications/message', (n) => {
  report.notifications.push(n.params?.data?.seq ?? null);
});

// Lists tools (the SDK's cache may answer) and checks `name` is on the list.
const toolFromList = async (name) => {
  const { tools } = await client.listTools();
  (report.listed ??= []).push(tools.length);
  if (!tools.some((t) => t.name === name)) throw new Error(`tool ${name} is not on the tools list`);
};

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  report.protocol_version = client.getNegotiatedProtocolVersion?.() ?? null;
  if (listsTools) {
    const subscription = client.autoOpenedSubscription;
    report.listen = subscription ? 'open' : 'not opened';
    subscription?.closed.then((how) => {
      report.listen = how;
      if (how === 'remote') fail('listen', new Error('the tools listen stream ended unexpectedly'));
    });
  }
  const call = context.call ?? { tool: 'echo', arguments: { text: 'hello' } };
  const callOptions = call.progress ? { onprogress: (p) => report.progress.push(p.progress) } : {};
  try {
    if (listsTools) await toolFromList(call.tool);
    const result = await client.callTool({ name: call.tool, arguments: call.arguments ?? {} }, callOptions);
    report.result = firstText(result);
    if (result.isError) fail('call', new Error(`tool error: ${report.result}`));
  } catch (e) {
    fail('call', e);
  }
  for (let k = 1; k <= (context.followup_echo ?? 0); k++) {
    try {
      if (listsTools) await toolFromList('echo');
      const result = await client.callTool({ name: 'echo', arguments: { text: `followup ${k}` } });
      report.followups.push(firstText(result));
      if (result.isError) fail(`followup ${k}`, new Error(`tool error: ${firstText(result)}`));
    } catch (e) {
      report.followups.push(null);
      fail(`followup ${k}`, e);
    }
  }
} catch (e) {
  fail('connect', e);
}
try {
  await client.close();
} catch {
  /* closing may fail after a fault; the report already says what the application saw */
}
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
