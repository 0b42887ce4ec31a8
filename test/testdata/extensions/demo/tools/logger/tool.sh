#!/usr/bin/env bash
# logger: the level helpers send strings; mcp_log sends JSON data as JSON.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

text="$(mcp_args_get '.text // "working"')"

mcp_log_debug "demo.logger" "debug: ${text}"
mcp_log_info "demo.logger" "info: ${text}"
mcp_log_warn "demo.logger" "warning: ${text}"
mcp_log_error "demo.logger" "error: ${text}"
mcp_log notice "demo.logger" "$(mcp_json_obj event done text "${text}")"

mcp_emit_text "Sent 5 log messages"
