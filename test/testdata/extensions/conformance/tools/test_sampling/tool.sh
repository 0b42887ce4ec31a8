#!/usr/bin/env bash
# test_sampling: a sampling round trip through mcp_sample.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_require_capability sampling
answer="$(mcp_sample_text "$(mcp_args_get .prompt)" 100)" || mcp_fail -32603 "sampling failed: ${answer}"
mcp_emit_text "LLM response: ${answer}"
