#!/usr/bin/env bash
# The conformance suite's test:// resources (its "everything" server's
# fixtures), served by an mcp-bash-framework project-level provider: the
# resources and the template whose "provider" is "test" are read by
# running this script with the URI as $1. It prints the content; exit 3 is
# "resource not found", 4 an invalid URI (docs/REGISTRY.md).
set -euo pipefail

uri="${1:-}"
root="${MCPBASH_PROJECT_ROOT:?}"

case "${uri}" in
test://static-text)
	cat "${root}/data/static-text.txt"
	;;
test://static-binary)
	cat "${root}/data/red-pixel.png"
	;;
test://watched-resource)
	printf 'Watched resource content\n'
	;;
test://template/*/data)
	id="${uri#test://template/}"
	id="${id%/data}"
	case "${id}" in
	'' | *[!A-Za-z0-9_-]*)
		printf 'invalid id in %s\n' "${uri}" >&2
		exit 4
		;;
	esac
	printf '{"id":"%s","templateTest":true,"data":"Data for ID: %s"}' "${id}" "${id}"
	;;
test://*)
	printf 'unknown resource %s\n' "${uri}" >&2
	exit 3
	;;
*)
	printf 'the test provider serves test:// URIs only\n' >&2
	exit 4
	;;
esac
