#!/usr/bin/env bash
# slow: progress out of a total, and a cancellation check before each step.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

steps="$(mcp_args_int '.steps' --default 5 --min 1 --max 100)"
delay_ms="$(mcp_args_int '.delayMs' --default 100 --min 0 --max 5000)"
delay="$((delay_ms / 1000)).$(printf '%03d' $((delay_ms % 1000)))"

step=0
while [ "${step}" -lt "${steps}" ]; do
	if mcp_is_cancelled; then
		mcp_fail -32001 "Cancelled after ${step} of ${steps} steps"
	fi
	step=$((step + 1))
	mcp_progress "${step}" "Step ${step} of ${steps}" "${steps}"
	sleep "${delay}"
done
mcp_result_success "$(mcp_json_obj message "Finished" steps "${steps}")"
