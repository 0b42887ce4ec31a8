#!/usr/bin/env bash
# words.sh: completes test_prompt_with_arguments's arguments with the words
# of data/words.txt that start with what the client typed so far.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

prefix=""
if [[ ${MCP_COMPLETION_ARGS_JSON:-} =~ \"query\":\"([^\"]*)\" ]]; then
	prefix="${BASH_REMATCH[1]}"
fi
words=()
while IFS= read -r w; do
	case "${w}" in "${prefix}"*) words+=("${w}") ;; esac
done <"${MCPBASH_PROJECT_ROOT:?}/data/words.txt"
printf '{"suggestions":%s,"hasMore":false}\n' "$(mcp_json_arr "${words[@]}")"
