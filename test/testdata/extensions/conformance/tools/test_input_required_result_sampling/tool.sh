#!/usr/bin/env bash
# test_input_required_result_sampling: one sampling question, under a key of its own.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

answer="$(MCP_INPUT_KEY=capital_question mcp_sample_text "What is the capital of France?" 100)" || mcp_fail -32603 "sampling failed: ${answer}"
mcp_emit_text "The model says: ${answer}"
