#!/usr/bin/env bash
# test_embedded_resource: the SDK embeds the file, under a URI of our choosing.
set -euo pipefail
# shellcheck disable=SC1091
source "${MCP_SDK:?}/tool-sdk.sh"

mcp_result_text_with_resource "The embedded resource follows." \
	--path "${MCPBASH_PROJECT_ROOT:?}/data/embedded.txt" --mime text/plain --uri test://embedded-resource
