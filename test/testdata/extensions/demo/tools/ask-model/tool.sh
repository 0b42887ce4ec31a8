#!/usr/bin/env bash
# ask-model: a sampling round trip (mcp_sample_text), and the client's
# roots (mcp_client_roots) when asked for.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

question="$(mcp_args_get '.question')"
if ! answer="$(mcp_sample_text "${question}" 200)"; then
	mcp_fail -32603 "the model could not be asked: ${answer}"
fi
out="model said: ${answer}"
if [ "$(mcp_args_get '.roots // false')" = "true" ]; then
	roots="$(mcp_client_roots)" || mcp_fail -32603 "the client's roots could not be asked: ${roots}"
	out="${out}; roots: $(printf '%s' "${roots}" | jq -r '[.roots[].uri] | join(" ")')"
fi
printf '%s\n' "${out}"
