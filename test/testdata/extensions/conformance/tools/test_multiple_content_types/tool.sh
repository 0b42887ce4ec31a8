#!/usr/bin/env bash
# test_multiple_content_types: three kinds of content, the JSON document
# escaped into the resource's text by the SDK.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

png="$(base64 -w0 "${MCPBASH_PROJECT_ROOT:?}/data/red-pixel.png")"
doc="$(mcp_json_escape '{"test":"data","value":123}')"
printf '{"content":[%s,%s,%s]}\n' \
	'{"type":"text","text":"Multiple content types test:"}' \
	"{\"type\":\"image\",\"data\":\"${png}\",\"mimeType\":\"image/png\"}" \
	"{\"type\":\"resource\",\"resource\":{\"uri\":\"test://mixed-content-resource\",\"mimeType\":\"application/json\",\"text\":${doc}}}"
