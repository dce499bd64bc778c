// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in package.json),
// unmodified and with its default options, behind the `faultline grade` client contract
// (README.md): whatever the SDK does by default about reconnection and resumption is what
// gets graded, so this file only wires the application's side and prints the report.
//
//   FAULTLINE_CONTEXT='{"call":{...},"followup_echo":K}' node client.mjs URL
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[process.argv.length - 1];
const context = JSON.parse(process.env.FAULTLINE_CONTEXT ?? '{}');
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)),
).version;

const report = {
  progress: [],
  notifications: [],
  result: null,
  error: null,
  sdk: `@modelcontextprotocol/sdk ${sdkVersion}`,
  scenario: process.env.FAULTLINE_SCENARIO ?? null,
  followups: [],
};
const fail = (what, e) => {
  report.error ??= `${what}: ${e?.constructor?.name ?? 'Error'}: ${e?.message ?? e}`;
};
const firstText = (result) => (result.content ?? []).find((c) => c.type === 'text')?.text ?? null;

const client = new Client({ name: 'faultline-grade-typescript', version: '0.1.0' });
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  report.notifications.push(n.params?.data?.seq ?? null);
});

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = context.call ?? { tool: 'echo', arguments: { text: 'hello' } };
  const options = call.progress ? { onprogress: (p) => report.progress.push(p.progress) } : {};
  try {
    const result = await client.callTool({ name: call.tool, arguments: call.arguments ?? {} }, undefined, options);
    report.result = firstText(result);
    if (result.isError) fail('call', new Error(`tool error: ${report.result}`));
  } catch (e) {
    fail('call', e);
  }
  for (let k = 1; k <= (context.followup_echo ?? 0); k++) {
    try {
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
  /* closing a dead session may fail; the report already says what the application saw */
}
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
