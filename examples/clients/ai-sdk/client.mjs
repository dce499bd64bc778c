// The Vercel AI SDK's MCP client (npm `@ai-sdk/mcp`, pinned in package.json and
// package-lock.json; it needs Node 22, which the npm package `node`, pinned beside it, puts
// in node_modules/.bin), unmodified and with its default options, behind the `faultline
// grade` client contract (docs/client-contract.md). Whatever it does by default about
// reconnection, resumption and era negotiation is what gets graded; this file only wires the
// application's side and prints the report:
//
// - `createMCPClient({ transport: { type: 'http', url } })`: its default
//   `protocolVersionDiscovery: true` probes `server/discover` and, against faultline's
//   dual-era server, speaks 2026-07-28 (grade it with `--era modern`); with `--legacy` the
//   application passes `protocolVersionDiscovery: false`, the SDK's documented way to speak
//   2025 (grade it on the default set);
// - `callTool({ name, arguments })`, then `followup_echo` echo calls;
// - the client has no progress callback and no handler for server notifications, so the
//   report says so (`supports`): grade owes it neither, and the scenarios that need them are
//   `not_applicable`;
// - `lists_tools`: the client offers no subscription to list changes; the application lists
//   tools before each call. `use_tasks`: a plain call (no tasks extension client).
//
//   FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' node_modules/.bin/node client.mjs [--legacy] URL
import { readFileSync } from 'node:fs';
import { createMCPClient } from '@ai-sdk/mcp';

const args = process.argv.slice(2);
const legacy = args.includes('--legacy');
const url = args.filter((a) => a !== '--legacy').at(-1);
const context = JSON.parse(process.env.FAULTLINE_CONTEXT ?? '{}');
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@ai-sdk/mcp/package.json', import.meta.url)),
).version;

const report = {
  progress: [],
  notifications: [],
  result: null,
  error: null,
  supports: { progress: false, notifications: false },
  sdk: `@ai-sdk/mcp ${sdkVersion} (node ${process.versions.node}${legacy ? ', protocolVersionDiscovery false' : ''})`,
  scenario: process.env.FAULTLINE_SCENARIO ?? null,
  followups: [],
};
const fail = (what, e) => {
  report.error ??= `${what}: ${e?.constructor?.name ?? 'Error'}: ${e?.message ?? e}`;
};
const firstText = (result) => (result?.content ?? []).find((c) => c.type === 'text')?.text ?? null;
if (context.use_tasks) report.tasks = '@ai-sdk/mcp has no tasks extension client: a plain call';
const listsTools = Boolean(context.lists_tools);

let client = null;
const toolFromList = async (name) => {
  const { tools } = await client.listTools();
  (report.listed ??= []).push(tools.length);
  if (!tools.some((t) => t.name === name)) throw new Error(`tool ${name} is not on the tools list`);
};

try {
  client = await createMCPClient({
    transport: { type: 'http', url },
    ...(legacy ? { protocolVersionDiscovery: false } : {}),
    onUncaughtError: (e) => {
      (report.uncaught ??= []).push(`${e?.constructor?.name ?? 'Error'}: ${e?.message ?? e}`);
    },
  });
  const call = context.call ?? { tool: 'echo', arguments: { text: 'hello' } };
  try {
    if (listsTools) await toolFromList(call.tool);
    const result = await client.callTool({ name: call.tool, arguments: call.arguments ?? {} });
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
  await client?.close();
} catch {
  /* closing after a fault may fail; the report already says what the application saw */
}
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
