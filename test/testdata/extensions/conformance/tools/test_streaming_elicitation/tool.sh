#!/usr/bin/env bash
# test_streaming_elicitation: an elicitation in the middle of a call.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_progress 10 "asking"
resp="$(mcp_elicit "Continue?" '{"type":"object","properties":{"ok":{"type":"boolean"}}}')" || true
mcp_emit_text "action=$(jq -r .action <<<"${resp}")"
