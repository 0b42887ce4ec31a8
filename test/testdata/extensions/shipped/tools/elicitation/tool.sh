#!/usr/bin/env bash
# Asks the user four things, in the order and with the helpers of the
# framework's example 08, and stops with a message at the first answer that
# is not an acceptance.
set -euo pipefail
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"

jq_bin="${MCPBASH_JSON_TOOL_BIN:-}"
if [[ -z "${jq_bin}" ]] || ! command -v "${jq_bin}" >/dev/null 2>&1; then
	mcp_fail -32603 "JSON tooling unavailable for elicitation parsing"
fi

# stop_unless_accepted RESPONSE STEP: ends the call unless RESPONSE accepts.
stop_unless_accepted() {
	local action
	action="$("${jq_bin}" -r '.action' <<<"$1")"
	if [[ "${action}" != "accept" ]]; then
		mcp_result_success "$(mcp_json_obj message "Stopped at $2: action=${action}")"
		exit 0
	fi
}

confirm="$(mcp_elicit_confirm "Do you want to proceed with the demo?" || true)"
stop_unless_accepted "${confirm}" confirmation
if [[ "$("${jq_bin}" -r '.content.confirmed // false' <<<"${confirm}")" != "true" ]]; then
	mcp_result_success "$(mcp_json_obj message "Stopped: not confirmed")"
	exit 0
fi

mode="$(mcp_elicit_choice "Pick a mode" explore safe expert || true)"
stop_unless_accepted "${mode}" mode

quality="$(mcp_elicit_titled_choice "Select output quality" \
	"high:High (1080p, larger file)" "medium:Medium (720p, balanced)" "low:Low (480p, smaller file)" || true)"
stop_unless_accepted "${quality}" quality

features="$(mcp_elicit_multi_choice "Enable features (select multiple)" logging caching compression encryption || true)"
stop_unless_accepted "${features}" features

mcp_result_success "$(mcp_json_obj \
	message "Elicitation complete" \
	mode "$("${jq_bin}" -r '.content.choice' <<<"${mode}")" \
	quality "$("${jq_bin}" -r '.content.choice' <<<"${quality}")" \
	features "$("${jq_bin}" -r '(.content.choices // []) | join(", ")' <<<"${features}")")"
