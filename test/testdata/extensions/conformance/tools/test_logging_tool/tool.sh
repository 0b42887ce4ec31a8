#!/usr/bin/env bash
# test_logging_tool: logs during the call.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_log_info conformance "Tool execution started"
mcp_log_info conformance "Tool processing data"
mcp_log_info conformance "Tool execution completed"
mcp_emit_text "Sent 3 log messages"
