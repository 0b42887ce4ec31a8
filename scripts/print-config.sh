#!/usr/bin/env bash
# Prints how to connect an MCP client to a freshly built boris binary.
set -euo pipefail
boris=${1:?usage: print-config.sh /path/to/boris}
workdir=${BORIS_WORKDIR:-$PWD}
"$boris" --version
cat <<CONFIG

Local use (stdio): your MCP client starts boris itself. Add this to the client's
configuration (Claude Desktop: claude_desktop_config.json; Cursor: ~/.cursor/mcp.json):

{
  "mcpServers": {
    "boris": {
      "command": "$boris",
      "args": ["--workdir", "$workdir"]
    }
  }
}

Claude Code:

  claude mcp add boris -- "$boris" --workdir "$workdir"

Flags: "$boris" --help

Remote use (HTTP): starting boris-gateway on http://127.0.0.1:8080/mcp now; it prints a
generated bearer token and client configurations below. Ctrl-C stops it.
CONFIG
