#!/usr/bin/env bash
# fail: every way a tool reports failure, chosen by the mode argument.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?MCP_SDK is not set; run this tool through boris --extensions}/tool-sdk.sh"

mode="$(mcp_args_require '.mode')"
case "${mode}" in
fail)
	mcp_fail -32603 "The demo failed on purpose" "$(mcp_json_obj mode "${mode}")"
	;;
invalid)
	mcp_fail_invalid_args "mode=invalid is refused as invalid params"
	;;
error)
	mcp_error "not_found" "Nothing called demo exists" \
		--hint "Call fail with mode=ok" \
		--data "$(mcp_json_obj mode "${mode}")"
	;;
result-error)
	mcp_result_error '{"type":"validation_error","message":"The value was out of range","min":1,"max":10}'
	;;
exit)
	echo "fail: giving up with status 3" >&2
	exit 3
	;;
ok)
	mcp_result_success '{"mode":"ok"}'
	;;
*)
	mcp_error "validation_error" "Unknown mode: ${mode}" --hint "Use one of fail, invalid, error, result-error, exit, ok"
	;;
esac
