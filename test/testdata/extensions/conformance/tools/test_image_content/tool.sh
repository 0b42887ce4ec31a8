#!/usr/bin/env bash
# test_image_content: a result object printed directly, the image read from
# the extension's data directory and base64-encoded.
set -euo pipefail

png="$(base64 -w0 "${MCPBASH_PROJECT_ROOT:?}/data/red-pixel.png")"
printf '{"content":[{"type":"image","data":"%s","mimeType":"image/png"}]}\n' "${png}"
