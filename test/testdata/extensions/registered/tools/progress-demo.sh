#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
for pct in 10 40 75 100; do
	mcp_progress "${pct}" "Registered progress (${pct}%)"
done
mcp_result_success "$(mcp_json_obj message "Registered tool finished")"
