#!/usr/bin/env bash
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
mcp_result_text_with_resource \
	"$(mcp_json_obj message "See embedded report for details")" \
	--path "${MCPBASH_PROJECT_ROOT}/data/report.txt" --mime text/plain
