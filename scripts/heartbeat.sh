#!/usr/bin/env bash
# heartbeat.sh WHAT COMMAND...: runs COMMAND, its output passed through,
# printing "  ... WHAT: still running (Ns)" every 20 s while it runs (a cold
# go build prints nothing for minutes), and exits with its status.
set -uo pipefail
what=${1:?usage: heartbeat.sh WHAT COMMAND...}
shift
start=$SECONDS
"$@" &
pid=$!
(
  while sleep 20; do echo "  ... $what: still running ($((SECONDS - start))s)"; done
) &
beat=$!
wait "$pid"
rc=$?
kill "$beat" 2>/dev/null
wait "$beat" 2>/dev/null
exit "$rc"
