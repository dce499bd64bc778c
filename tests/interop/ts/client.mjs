// The real TypeScript SDK client (@modelcontextprotocol/sdk, pinned in ../package.json)
// against `faultline serve`. One scenario per run:
//
//   node ts/client.mjs SCENARIO URL OUT.json
//
// SCENARIO is baseline | behavior_a | behavior_b | replay_404_cascade | auto_long_job. For
// the incidents the server runs with --time-scale 0 --control: virtual time only moves when
// this program calls POST /_chaos/clock/advance, so every run is the same run. For
// auto_long_job it runs with --time-scale auto: the server moves its clock itself and this
// program never touches it.
//
// It records what the *application* was handed by the SDK (progress, notifications,
// results, errors, whether a call hung) and what went over the wire (every HTTP exchange
// the SDK made, with its Last-Event-ID, session id, status and the SSE ids it received),
// and writes that as JSON. Judging it against the ledger is check.py's job.
import { readFileSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [scenario, url, outPath] = process.argv.slice(2);
if (!scenario || !url || !outPath) {
  console.error('usage: client.mjs SCENARIO URL OUT.json');
  process.exit(2);
}
const base = new URL(url);
const chaosUrl = (path) => new URL(`/_chaos/${path}`, base).toString();
const sdkVersion = JSON.parse(
  readFileSync(new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)),
).version;

const t0 = Date.now();
const record = {
  client: 'typescript',
  sdk: `@modelcontextprotocol/sdk ${sdkVersion}`,
  scenario,
  progress: [], // progress values the app's onprogress got, in order
  notifications: [], // {session, seq} of each notifications/message the app got, in order
  calls: [], // {tool, outcome: result|error|hung, text, error}
  transport_errors: [], // transport.onerror messages
  wire: [], // {t_ms, method, last_event_id, session, status, sse_ids}
  steps: [], // what the harness did, with virtual times
};
const note = (what, extra = {}) => record.steps.push({ t_ms: Date.now() - t0, what, ...extra });

// fetch wrapper: records every exchange and the SSE ids the SDK will read.
const recordingFetch = async (input, init = {}) => {
  const headers = new Headers(init.headers ?? {});
  const entry = {
    t_ms: Date.now() - t0,
    method: init.method ?? 'GET',
    last_event_id: headers.get('last-event-id'),
    session: headers.get('mcp-session-id'),
    status: null,
    sse_ids: [],
  };
  if (entry.method === 'POST' && typeof init.body === 'string') {
    try {
      entry.rpc = JSON.parse(init.body).method ?? 'response';
    } catch {
      entry.rpc = null;
    }
  }
  record.wire.push(entry);
  let res;
  try {
    res = await fetch(input, init);
  } catch (e) {
    entry.error = String(e);
    throw e;
  }
  entry.status = res.status;
  const type = res.headers.get('content-type') ?? '';
  if (!res.body || !type.startsWith('text/event-stream')) return res;
  const [mine, theirs] = res.body.tee();
  (async () => {
    const reader = mine.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line.startsWith('id:')) entry.sse_ids.push(line.slice(3).trim());
        }
      }
      entry.ended = 'clean';
    } catch (e) {
      entry.ended = `error: ${e?.cause?.code ?? e?.message ?? e}`;
    }
  })();
  return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers });
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function chaos(path, body) {
  const res = await fetch(chaosUrl(path), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`/_chaos/${path}: HTTP ${res.status}`);
  return res.json();
}
// The model's typed ledger, from beside the server's clock and faults in the body.
const ledger = async () => (await chaos('ledger')).ledger;
async function advance(ms) {
  const r = await chaos('clock/advance', { ms });
  note(`advance ${ms} ms`, { now_ms: r.now_ms });
  return r.now_ms;
}
async function waitFor(what, cond, timeoutMs) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) {
      note(`timed out waiting for ${what}`);
      return false;
    }
    await sleep(25);
  }
}
const standaloneAttached = async () => {
  const l = await ledger();
  return l.answers.some((a) => a.method === 'Get' && a.status === 200);
};

function startCall(tool, args, { progress = false, timeoutMs = 600_000 } = {}) {
  const call = { tool, outcome: 'pending', text: null, error: null, resumption_tokens: [] };
  record.calls.push(call);
  const options = {
    timeout: timeoutMs,
    onresumptiontoken: (token) => call.resumption_tokens.push(token),
  };
  if (progress) {
    options.onprogress = (p) => record.progress.push(p.progress);
    options.resetTimeoutOnProgress = true;
  }
  const promise = client.callTool({ name: tool, arguments: args }, undefined, options).then(
    (result) => {
      call.outcome = result.isError ? 'tool_error' : 'result';
      call.text = (result.content ?? []).map((c) => c.text).join('');
    },
    (error) => {
      call.outcome = 'error';
      call.error = `${error?.constructor?.name ?? 'Error'}: ${error?.message ?? error}`;
      if (error?.code !== undefined) call.error_code = error.code;
    },
  );
  return { call, promise };
}
// Waits for a call, at most `ms`; a call still pending then is recorded as hung.
async function settle({ call, promise }, ms) {
  await Promise.race([promise, sleep(ms)]);
  if (call.outcome === 'pending') call.outcome = 'hung';
}

let client;
let transport;
async function connect() {
  client = new Client({ name: 'faultline-interop-ts', version: '0.1.0' });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    // seq counts per session, so the session it came on is part of its name.
    record.notifications.push({ session: transport?.sessionId ?? null, seq: n.params?.data?.seq ?? null });
  });
  transport = new StreamableHTTPClientTransport(base, { fetch: recordingFetch });
  await client.connect(transport);
  // Client.connect installs its own handler; chain ours after it.
  const sdkOnError = transport.onerror;
  transport.onerror = (e) => {
    record.transport_errors.push(String(e?.message ?? e));
    sdkOnError?.(e);
  };
  record.session = transport.sessionId;
  note('connected', { session: transport.sessionId });
}

const scenarios = {
  // Fault-free: echo, then long_job with a progress token; everything must arrive.
  async baseline() {
    await connect();
    const echo = startCall('echo', { text: 'hello faultline' });
    await settle(echo, 10_000);
    const job = startCall('long_job', { steps: 20, interval_ms: 20 }, { progress: true });
    await settle(job, 20_000);
  },

  // Behavior A: 81 progress events a minute apart; the call's stream is reset right after
  // event 41 (the scenario's AfterEvent fault); the log (TTL 30 s) forgets the stream
  // before the client is back, and the cursor gets a fresh stream numbered from 1.
  async behavior_a() {
    await connect();
    const job = startCall('long_job', { steps: 81, interval_ms: 60_000 }, { progress: true });
    await waitFor('the job to start', async () => (await ledger()).jobs.length > 0, 5_000);
    // 41 steps (the drop fires after the 41st event), then 45 s "away" in the same jump so
    // that the log has expired before the client's reconnect (its delay is wall time).
    await advance(41 * 60_000 + 45_000);
    await waitFor('the client to come back', async () => (await ledger()).resumptions.length > 0, 15_000);
    await sleep(200);
    await advance(40 * 60_000);
    await settle(job, 5_000);
  },

  // Behavior B: notifications on the standalone stream every 10 s; the server restarts
  // right after the 41st and restores the session by id (new generation, ids from 1);
  // 10 minutes of generation-2 notifications are buffered before the client is back.
  async behavior_b() {
    await connect();
    await waitFor('the standalone GET', standaloneAttached, 5_000);
    await advance(410_000 + 600_000);
    await waitFor('the client to come back', async () => (await ledger()).resumptions.length > 0, 15_000);
    await sleep(300);
    await advance(60_000);
    await sleep(500);
    const echo = startCall('echo', { text: 'after the restart' });
    await settle(echo, 5_000);
  },

  // The cascade: session absolute TTL 30 min, log 60 min, GET does not validate the
  // session. Drop at 5m, back at 6m (replay, 200), session dies at 31m, call at 33m.
  async replay_404_cascade() {
    await advance(60_000); // the client starts at T+1m
    await connect();
    await waitFor('the standalone GET', standaloneAttached, 5_000);
    await advance(240_000); // to 5m: the load balancer drops the GET
    await advance(60_000); // away until 6m (before the client's reconnect delay runs out)
    await waitFor('the client to come back', async () => (await ledger()).resumptions.length > 0, 15_000);
    await waitFor('the replay', async () => {
      const l = await ledger();
      const produced = l.events.filter((e) => e.payload.type === 'notification').length;
      return record.notifications.length >= produced;
    }, 10_000);
    await advance(27 * 60_000); // to 33m: the session died at 31m
    await sleep(300);
    for (let i = 0; i < 3; i++) {
      // The application retries the call three times, as the incident's client did.
      const call = startCall('echo', { text: `are we there yet (${i + 1})` }, { timeoutMs: 5_000 });
      await settle(call, 6_000);
    }
    await sleep(1_500); // let any SDK-initiated recovery (re-initialize) show on the wire
  },

  // --time-scale auto, fault-free: 81 one-minute steps. Nothing here moves the clock; the
  // server jumps it while the call's stream waits. Records the wall time from connecting
  // to the result, and the server's clock once the result is in.
  async auto_long_job() {
    const started = Date.now();
    await connect();
    const job = startCall('long_job', { steps: 81, interval_ms: 60_000 }, { progress: true });
    await settle(job, 60_000);
    record.wall_ms = Date.now() - started;
    record.clock_after = await chaos('clock');
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}
const hardStop = setTimeout(() => {
  record.harness_timeout = true;
  finish(3);
}, 90_000);
function finish(code) {
  for (const c of record.calls) if (c.outcome === 'pending') c.outcome = 'hung';
  record.session_after = transport?.sessionId ?? null;
  writeFileSync(outPath, JSON.stringify(record, null, 1));
  process.exit(code);
}
try {
  await run();
} catch (e) {
  record.harness_error = String(e?.stack ?? e);
}
clearTimeout(hardStop);
try {
  await Promise.race([client?.close(), sleep(2_000)]);
} catch {
  /* closing a dead session may fail; that is not the finding */
}
finish(0);
