#!/usr/bin/env bash
# test_input_required_result_multi_round: two questions, one after the other.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

name="$(MCP_INPUT_KEY=step1 mcp_elicit "Step 1: What is your name?" '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}')" || true
color="$(MCP_INPUT_KEY=step2 mcp_elicit "Step 2: What is your favorite color?" '{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}')" || true
mcp_emit_text "$(jq -r '.content.name // ""' <<<"${name}") likes $(jq -r '.content.color // ""' <<<"${color}")"
