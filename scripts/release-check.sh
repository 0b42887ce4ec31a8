#!/usr/bin/env bash
# release-check: checks goreleaser.yaml, builds a snapshot release of every
# archive (linux and darwin, amd64 and arm64) into ./dist, and verifies it
# with test/deploy's TestReleaseSnapshot: each archive holds both binaries,
# README, docs/ and deploy/; every binary is static and of the right platform; the
# linux/amd64 ones print the stamped version (not "dev") and their --help;
# checksums.txt matches. Slow (a few minutes): `make release-check`, not
# part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

GORELEASER_VERSION=v2.15.4
start=$(date +%s)

# goreleaser v2: the one on PATH if it is v2, else the pinned version.
gr=$(command -v goreleaser || true)
if [[ -z "$gr" ]] || ! "$gr" --version 2>/dev/null | grep -Eq 'GitVersion:[[:space:]]+v?2\.'; then
	gobin=$(go env GOBIN)
	gr="${gobin:-$(go env GOPATH)/bin}/goreleaser"
	if [[ ! -x "$gr" ]] || ! "$gr" --version 2>/dev/null | grep -Eq 'GitVersion:[[:space:]]+v?2\.'; then
		echo "release-check: installing goreleaser $GORELEASER_VERSION (takes a few minutes)"
		go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
	fi
fi
"$gr" --version | grep -E 'GitVersion'

# goreleaser discards all git information (so the commit stamped into
# --version becomes "none") when the clone has no remote. Give it one
# through the environment only; the repository's configuration is untouched.
if ! git ls-remote --get-url >/dev/null 2>&1; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mjkoo/boris.git
fi

"$gr" check
"$gr" release --snapshot --clean --skip=publish

BORIS_RELEASE_CHECK=1 BORIS_RELEASE_DIST="$PWD/dist" \
	go test -count=1 -v -run '^TestReleaseSnapshot$' ./test/deploy

echo "release-check: ok in $(($(date +%s) - start))s; archives and checksums.txt in ./dist"
