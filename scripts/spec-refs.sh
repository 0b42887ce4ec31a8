#!/usr/bin/env bash
# spec-refs: rewrites every reference to a section of the project's former
# out-of-tree contract ("SPEC §2.6", also "SPEC.md §10" and a reference
# wrapped over two comment lines) into the page of docs/reference/ that now
# holds that section, e.g. docs/reference/tools.md#str_replace. Re-runnable:
# after a merge brings new such comments, run it again; a tree without any
# changes nothing. internal/doclinks's tests fail while one remains, and
# check that every docs/ anchor a Go comment names exists.
#
#   scripts/spec-refs.sh            rewrite the tracked files in place
#   scripts/spec-refs.sh --check    list what would be rewritten; exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."

# Section -> page and anchor. A section with a more specific anchor for a
# quoted bullet is refined below (refine).
declare -A ref=(
	[1]=docs/reference/distribution.md#layout
	[2]=docs/reference/core.md
	[2.1]=docs/reference/core.md#configuration
	[2.2]=docs/reference/core.md#errors
	[2.3]=docs/reference/tools.md#bash
	[2.4]=docs/reference/tools.md#background-tasks
	[2.5]=docs/reference/tools.md#view
	[2.6]=docs/reference/tools.md#str_replace
	[2.7]=docs/reference/tools.md#create_file
	[2.8]=docs/reference/tools.md#grep
	[2.9]=docs/reference/tools.md#the-anthropic-compatible-editor
	[2.10]=docs/reference/core.md#path-scoping
	[2.11]=docs/reference/core.md#protocol-behaviour
	[3]=docs/reference/gateway.md
	[3.1]=docs/reference/gateway.md#configuration
	[3.2]=docs/reference/gateway.md#http-surface
	[4]=docs/reference/gateway.md#authentication
	[5]=docs/reference/distribution.md#releases
	[6]=docs/reference/security.md
	[7]=docs/reference/core.md#checkpoints
	[8]=docs/reference/core.md#workspaces
	[9]=docs/reference/core.md#extensions
	[10]=docs/reference/gateway.md#stateless-requests-2026-07-28
	[11]=docs/reference/core.md#work-tracking
	[12]=docs/reference/distribution.md#several-hosts
)

# The files that may hold such references (grep -z: the whole file is one
# record, so a reference wrapped over two lines is found too): tracked text
# outside docs/ and this script.
files() {
	git ls-files -z -- . ':!docs/**' ':!*.md' ':!scripts/spec-refs.sh' |
		{ xargs -0 grep -lIzE 'SPEC(\.md)?[[:space:]/#]*§' -- 2>/dev/null || true; } | tr '\0' '\n' | sort -u
}

if [[ "${1:-}" == "--check" ]]; then
	found=$(files)
	[[ -z "$found" ]] && exit 0
	echo "references to the out-of-tree contract remain (run scripts/spec-refs.sh):" >&2
	echo "$found" >&2
	exit 1
fi

# The map as a Perl hash literal.
map=""
for k in "${!ref[@]}"; do map+="'$k' => '${ref[$k]}', "; done

files | while IFS= read -r f; do
	MAP="$map" perl -0pi -e '
		my %ref = eval $ENV{MAP};
		sub to { my $n = shift; exists $ref{$n} or die "no page for section $n in $ARGV\n"; $ref{$n} }
		# Refinements: section 6 bullets quoted after the reference.
		s/SPEC(?:\.md)? §6(,? ?"?:? ?)(?=["]?Tenants|tenants)/docs\/reference\/security.md#network-modes$1/g;
		s/SPEC(?:\.md)? §6(,? ?"?:? ?)(?=["]?Boris.s own state)/docs\/reference\/security.md#boriss-own-state$1/g;
		s/SPEC(?:\.md)? §6(:? ?)(?="Each core runs in)/docs\/reference\/security.md#nothing-escapes-a-session$1/g;
		# A reference wrapped over two comment lines: "(SPEC" / "// §2.9)".
		s/[ \t]*(\(?)SPEC(?:\.md)?\n([ \t]*)(\/\/|#) §(\d+(?:\.\d+)?)/"\n$2$3 $1" . to($4)/ge;
		# "SPEC §6, §9": the second section too.
		s/SPEC(?:\.md)? §(\d+(?:\.\d+)?), §(\d+(?:\.\d+)?)/to($1) . ", " . to($2)/ge;
		s/SPEC(?:\.md)? §(\d+(?:\.\d+)?)/to($1)/ge;
	' "$f"
	echo "rewrote $f"
done
