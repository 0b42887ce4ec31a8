#!/usr/bin/env bash
# test_tool_with_logging: notifications/message at info, during the call.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_log_info conformance "Tool execution started"
sleep 0.05
mcp_log_info conformance "Tool processing data"
sleep 0.05
mcp_log_info conformance "Tool execution completed"
mcp_emit_text "Sent 3 log messages"
