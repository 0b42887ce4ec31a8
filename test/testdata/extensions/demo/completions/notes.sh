#!/usr/bin/env bash
# Completes the {file} of the demo-notes template from resources/notes,
# reading the query from MCP_COMPLETION_ARGS_JSON without jq.
set -euo pipefail
query=""
if [[ ${MCP_COMPLETION_ARGS_JSON:-} =~ \"query\":\"([^\"]*)\" ]]; then
	query="${BASH_REMATCH[1]}"
fi
out=""
for f in "${MCPBASH_PROJECT_ROOT}"/resources/notes/*; do
	f="${f##*/}"
	case "$f" in "$query"*) out="${out}${out:+,}\"$f\"" ;; esac
done
printf '{"suggestions":[%s],"hasMore":false}\n' "$out"
