#!/usr/bin/env bash
# Prints how to connect an MCP client to a freshly built boris binary.
set -euo pipefail
boris=${1:?usage: print-config.sh /path/to/boris}
workdir=${BORIS_WORKDIR:-$PWD}
"$boris" --version
cat <<CONFIG

boris is a stdio MCP server: your MCP client starts it. Add this to the client's
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
CONFIG
