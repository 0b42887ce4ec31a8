#!/usr/bin/env bash
# test_elicitation_sep1034_defaults: an elicitation with default values (SEP-1034).
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_require_capability elicitation
schema='{"type":"object","properties":{
 "name":{"type":"string","default":"John Doe"},
 "age":{"type":"integer","default":30},
 "score":{"type":"number","default":95.5},
 "status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
 "verified":{"type":"boolean","default":true}}}'
resp="$(mcp_elicit "Please review and update the form fields with defaults" "${schema}")" || true
mcp_emit_text "Elicitation completed: action=$(jq -r .action <<<"${resp}"), content=$(jq -c .content <<<"${resp}")"
