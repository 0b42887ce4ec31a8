#!/usr/bin/env bash
# Prints how to connect an MCP client to a freshly built boris binary.
set -euo pipefail
usage="usage: print-config.sh /path/to/boris [WORKDIR [PORT [GATEWAY_FLAGS]]]"
boris=${1:?$usage}
workdir=${2:-${BORIS_WORKDIR:-$PWD}}
port=${3:-8080}
flags=" ${4:-} "
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

CONFIG
case "$flags" in
*" --auth none "* | *" --auth=none "* | *" -auth none "* | *" -auth=none "*)
	cat <<CONFIG
Remote use (HTTP): starting boris-gateway on http://127.0.0.1:$port/mcp now, without
authentication (--auth none): clients on this machine connect without credentials, and the
dashboard and the metrics need no login:

  http://127.0.0.1:$port/dashboard
  curl http://127.0.0.1:$port/metrics

CONFIG
	;;
*)
	cat <<CONFIG
Remote use (HTTP): starting boris-gateway on http://127.0.0.1:$port/mcp now; it prints a
generated bearer token and client configurations below (none with RUN_FLAGS='--auth none').
That token (its subject is "generated") also opens the dashboard and the metrics:

  http://127.0.0.1:$port/dashboard                 (log in with the token)
  curl -H "Authorization: Bearer TOKEN" http://127.0.0.1:$port/metrics

CONFIG
	;;
esac
cat <<CONFIG
Ctrl-C stops it.
CONFIG
