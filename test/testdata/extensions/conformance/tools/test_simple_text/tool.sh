#!/usr/bin/env bash
# test_simple_text: plain stdout is the text of the result.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_emit_text "This is a simple text response for testing."
