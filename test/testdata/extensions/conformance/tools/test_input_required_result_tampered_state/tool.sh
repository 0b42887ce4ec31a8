#!/usr/bin/env bash
# test_input_required_result_tampered_state: a question whose signed requestState cannot be altered.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

resp="$(MCP_INPUT_KEY=confirm mcp_elicit "Please confirm" '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}')" || true
mcp_emit_text "confirmed=$(jq -r '.content.ok // false' <<<"${resp}")"
