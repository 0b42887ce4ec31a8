#!/usr/bin/env bash
# test_error_handling: a tool error (isError), not a protocol error.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_error internal_error "This tool intentionally returns an error for testing"
