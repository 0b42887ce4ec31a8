#!/usr/bin/env bash
# test_elicitation: one elicitation through mcp_elicit.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_require_capability elicitation
schema='{"type":"object","properties":{"username":{"type":"string","description":"User'"'"'s response"},"email":{"type":"string","description":"User'"'"'s email address"}},"required":["username","email"]}'
resp="$(mcp_elicit "$(mcp_args_get .message)" "${schema}")" || true
mcp_emit_text "User response: action=$(jq -r .action <<<"${resp}"), content=$(jq -c .content <<<"${resp}")"
