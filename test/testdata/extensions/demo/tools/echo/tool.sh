#!/usr/bin/env bash
# echo: reads a required argument; a missing one is an invalid-params error.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

value="$(mcp_args_require '.value' 'value is required: send {"value":"some text"}')"
mcp_result_success "$(mcp_json_obj value "${value}")"
