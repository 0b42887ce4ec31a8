#!/usr/bin/env bash
# test_input_required_result_list_roots: one roots/list question, under a key of its own.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

roots="$(MCP_INPUT_KEY=client_roots mcp_client_roots)" || mcp_fail -32603 "roots/list failed: ${roots}"
mcp_emit_text "The client's roots: $(jq -r '[.roots[].uri] | join(", ")' <<<"${roots}")"
