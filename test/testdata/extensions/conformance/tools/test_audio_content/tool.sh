#!/usr/bin/env bash
# test_audio_content: like test_image_content, with a WAV file.
set -euo pipefail

wav="$(base64 -w0 "${MCPBASH_PROJECT_ROOT:?}/data/silence.wav")"
printf '{"content":[{"type":"audio","data":"%s","mimeType":"audio/wav"}]}\n' "${wav}"
