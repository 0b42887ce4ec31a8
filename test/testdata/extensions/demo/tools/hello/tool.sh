#!/usr/bin/env bash
# hello: the smallest useful tool; a structured result and nothing else.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

mcp_result_success "$(mcp_json_obj message "Hello from a Boris extension")"
