#!/usr/bin/env bash
# json_schema_2020_12_tool: Boris has checked the arguments against the
# schema before this runs; say how the contact will be reached.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

name="$(mcp_args_get '.name // "someone"')"
phone="$(mcp_args_get '.phone // ""')"
email="$(mcp_args_get '.email // ""')"
mcp_result_success "$(mcp_json_obj name "${name}" phone "${phone}" email "${email}")"
