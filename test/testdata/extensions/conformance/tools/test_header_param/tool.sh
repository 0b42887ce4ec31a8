#!/usr/bin/env bash
# test_header_param: echoes its region argument.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_emit_text "region: $(mcp_args_get '.region')"
