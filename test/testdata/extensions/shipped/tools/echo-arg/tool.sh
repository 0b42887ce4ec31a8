#!/usr/bin/env bash
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
value="$(mcp_args_require '.value')"
mcp_result_success "$(mcp_json_obj message "You sent: ${value} (bash ${BASH_VERSINFO[0]})")"
