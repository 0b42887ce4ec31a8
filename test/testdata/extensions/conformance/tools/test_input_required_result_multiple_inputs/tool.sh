#!/usr/bin/env bash
# test_input_required_result_multiple_inputs: three questions asked before waiting for any answer.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_input_request user_name elicitation/create '{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}'
mcp_input_request greeting sampling/createMessage '{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}'
mcp_input_request client_roots roots/list '{}'
name="$(mcp_input_response user_name)" || true
greeting="$(mcp_input_response greeting)" || true
roots="$(mcp_input_response client_roots)" || true
mcp_emit_text "name=$(jq -r '.content.name // ""' <<<"${name}") greeting=$(jq -r '.content.text // ""' <<<"${greeting}") roots=$(jq -r '[.roots[]?.uri] | join(",")' <<<"${roots}")"
