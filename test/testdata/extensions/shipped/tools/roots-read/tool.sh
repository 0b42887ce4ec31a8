#!/usr/bin/env bash
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
path="$(mcp_args_get '.path // empty' 2>/dev/null || true)"
if [[ -z "${path}" ]]; then
	mcp_fail_invalid_args "Missing required argument: path"
fi
if ! mcp_roots_contains "${path}"; then
	mcp_error "permission_denied" "Path is outside allowed roots" --data "$(mcp_json_obj path "${path}")"
	exit 0 # mcp_error prints the result and returns; the script goes on otherwise
fi
content="$(cat "${path}")"
mcp_result_success "$(mcp_json_obj content "${content}")"
