#!/usr/bin/env bash
# test_input_required_result_elicitation: one question, under a key of its own.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

resp="$(MCP_INPUT_KEY=user_name mcp_elicit "What is your name?" '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}')" || true
mcp_emit_text "Hello, $(jq -r '.content.name // "stranger"' <<<"${resp}")!"
