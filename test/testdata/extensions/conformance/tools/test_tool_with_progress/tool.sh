#!/usr/bin/env bash
# test_tool_with_progress: notifications/progress when the client sent a
# token. Boris forwards at most one per 100 ms (the latest), so the steps
# are 200 ms apart to arrive as three notifications.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

for step in 0 50 100; do
	mcp_progress "${step}" "Step ${step} of 100" 100
	[ "${step}" = 100 ] || sleep 0.2
done
mcp_emit_text "Progress reported: 0, 50, 100 of 100"
