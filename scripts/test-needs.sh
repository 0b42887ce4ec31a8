#!/usr/bin/env bash
# Says, before make test runs anything, what it will install and why: the
# tests install what they need when it is missing, and nobody should learn
# that from apt-get's output or a 260 MB download.
set -euo pipefail
cache=${BORIS_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/boris-test}
[[ $(uname) == Darwin && -z ${BORIS_TEST_CACHE:-} ]] && cache="$HOME/Library/Caches/boris-test"

echo "make test: every package's tests (-race), the end-to-end tests of ./test through the built binaries, go vet and staticcheck beside them"
echo "(about 10 minutes on a 2-core machine with warm caches, 25 with empty ones, less on more cores; a line at least every 25 s,"
echo "a line per test as it ends, a summary at the end, failures' full output in bin/test-logs)."
echo "What it installs when missing, and why:"
echo "  - Go modules (go mod download), into Go's module cache."
if compgen -G "$cache/npm/boris-interop-*/.boris-installed" >/dev/null; then
  echo "  - npm packages of test/interop: already in $cache/npm."
else
  echo "  - npm packages of test/interop (the MCP TypeScript clients, the conformance suite and the Node 22+ it needs,"
  echo "    about 260 MB) with npm ci, into $cache/npm (not the checkout; BORIS_TEST_CACHE moves it)."
fi
if [[ -x $cache/gopls/v0.23.0/gopls ]] && compgen -G "$cache/npm/boris-lsp-servers-*/.boris-installed" >/dev/null; then
  echo "  - language servers of the diagnostics tests: already in $cache."
else
  echo "  - language servers of the diagnostics tests: gopls v0.23.0 (go install, a few minutes of compiling) into"
  echo "    $cache/gopls, and pyright and typescript-language-server pinned in test/lsp (npm ci, about 65 MB) into $cache/npm."
fi
apt=$(command -v apt-get || true)
need() { # program, Debian package, why; found in PATH or sbin
  if PATH="$PATH:/usr/sbin:/sbin" command -v "$1" >/dev/null; then return; fi
  if [[ -n $apt ]]; then
    echo "  - $1 is missing: the tests install the Debian package $2 with apt-get (root needed), for $3."
  else
    echo "  - $1 is missing and there is no apt-get: $3 cannot run (install $2)."
  fi
}
need nginx nginx "the nginx deployment tests (test/deploy)"
need caddy caddy "the Caddy deployment tests (test/deploy)"
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  need chromium chromium "the dashboard's headless browser test (skipped if it cannot be installed)"
fi
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  if [[ -n $apt ]]; then
    echo "  - PostgreSQL is missing: the tests install the Debian package postgresql with apt-get (root needed), for the board on PostgreSQL (core/board, test); skipped if it cannot be installed."
  else
    echo "  - PostgreSQL is missing and there is no apt-get: the board's PostgreSQL tests are skipped (install postgresql)."
  fi
fi
need rg ripgrep "the differential grep tests against ripgrep (skipped if it cannot be installed)"
need npm npm "test/interop (Node.js with npm, any version)"
echo
