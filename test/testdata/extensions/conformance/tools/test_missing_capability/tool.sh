#!/usr/bin/env bash
# test_missing_capability: a tool that cannot work without sampling.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_require_capability sampling
answer="$(mcp_sample_text "Say hello" 20)" || mcp_fail -32603 "sampling failed: ${answer}"
mcp_emit_text "${answer}"
