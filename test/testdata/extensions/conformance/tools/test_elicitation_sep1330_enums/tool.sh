#!/usr/bin/env bash
# test_elicitation_sep1330_enums: an elicitation with every enum shape (SEP-1330).
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_require_capability elicitation
schema='{"type":"object","properties":{
 "untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
 "titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
 "legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
 "untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},
 "titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}'
resp="$(mcp_elicit "Please select options from the enum fields" "${schema}")" || true
mcp_emit_text "Elicitation completed: action=$(jq -r .action <<<"${resp}"), content=$(jq -c .content <<<"${resp}")"
