// What the 2024-11-05 interop scripts (sse.mjs, remote.mjs) ask of a
// connected client: tools/list, bash with a progress callback (at least one
// notification before the result), and view of a missing file (an isError
// result, not a protocol error). Each step is recorded in summary.steps.

import { textOf } from './summary.mjs';

// exercise runs the steps on client, recording failed checks with check.
export async function exercise(client, summary, check) {
  // tools/list
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  summary.steps.toolsList = { tools: names };
  check('tools/list', names.includes('bash') && names.includes('view'), `tools ${JSON.stringify(names)}`);

  // bash with progress: notifications come on the stream before the answer.
  const progress = [];
  let resolved = false;
  const command = 'for i in $(seq 1 25); do echo "sse line $i"; sleep 0.1; done';
  const result = await client.callTool({ name: 'bash', arguments: { command } }, undefined, {
    onprogress: (p) => { if (!resolved) progress.push(p.progress); },
    resetTimeoutOnProgress: true,
    timeout: 60_000,
  });
  resolved = true;
  summary.steps.bashWithProgress = { progress, isError: result.isError ?? false, text: textOf(result) };
  check('bash', !result.isError && textOf(result).includes('sse line 25'), `result ${JSON.stringify(textOf(result))}`);
  check('bash', progress.length >= 1, 'no progress notification before the result');

  // A tool error: an isError result, not a protocol error.
  const missing = await client.callTool({ name: 'view', arguments: { path: 'no-such-file.txt' } });
  summary.steps.toolError = { isError: missing.isError ?? false, text: textOf(missing) };
  check('tool error', missing.isError === true, `view of a missing file: ${JSON.stringify(missing)}`);

}
