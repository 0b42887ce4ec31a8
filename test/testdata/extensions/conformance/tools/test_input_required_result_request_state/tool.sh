#!/usr/bin/env bash
# test_input_required_result_request_state: a question whose next round proves the requestState came back.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

resp="$(MCP_INPUT_KEY=confirm mcp_elicit "Please confirm" '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}')" || true
# MCP_INPUT_ROUND counts the rounds whose signed requestState came back.
if [ "${MCP_INPUT_ROUND:-1}" -gt 1 ]; then
	mcp_emit_text "state-ok: confirmed=$(jq -r '.content.ok // false' <<<"${resp}")"
else
	mcp_emit_text "confirmed=$(jq -r '.content.ok // false' <<<"${resp}") (no requestState)"
fi
