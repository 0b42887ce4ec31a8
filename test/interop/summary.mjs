// What the interop scripts share: the JSON summary each prints on stdout,
// its failed checks, and the text of a tool result.

// newSummary returns a summary holding fields, with ok, steps and failures,
// and fail and check to record failed assertions in it.
export function newSummary(fields) {
  const summary = { ...fields, ok: false, steps: {}, failures: [], transportErrors: [] };
  const fail = (step, msg) => summary.failures.push(`${step}: ${msg}`);
  const check = (step, cond, msg) => {
    if (!cond) fail(step, msg);
    return cond;
  };
  return { summary, fail, check };
}

// textOf joins the text content of a tool result.
export const textOf = (result) =>
  (result?.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
