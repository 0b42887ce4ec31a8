#!/usr/bin/env bash
# test_input_required_result_capabilities: questions for the declared capabilities only.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

keys=()
if [ "${MCP_ELICIT_SUPPORTED:-0}" = 1 ]; then
	mcp_input_request user_name elicitation/create '{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}'
	keys+=(user_name)
fi
if [ "${MCP_SAMPLING_SUPPORTED:-0}" = 1 ]; then
	mcp_input_request capital_question sampling/createMessage '{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}'
	keys+=(capital_question)
fi
for k in "${keys[@]}"; do
	mcp_input_response "${k}" >/dev/null || true
done
mcp_emit_text "asked: ${keys[*]:-nothing}"
