#!/usr/bin/env bash
# build-controlplane.sh: kube-apiserver and etcd for `make test-k8s`, built
# from their Go modules into a cache outside the repository (never the
# checkout), once per version. Prints the directory holding both binaries.
#
# kube-apiserver lives in k8s.io/kubernetes, whose go.mod points its 33
# k8s.io/* staging modules at ./staging/src (absent from the module zip):
# a small wrapper module requires k8s.io/kubernetes and replaces each of
# them with its published release (v0.X.Y for Kubernetes v1.X.Y). etcd is
# the main package of go.etcd.io/etcd/server/v3, at the version
# Kubernetes itself requires. The first build takes about 10 minutes on two
# cores; it runs under `nice -n 19`.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-v1.37.2}
CACHE=${BORIS_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/boris-test/k8s}
out="$CACHE/$K8S_VERSION"
if [[ -x "$out/bin/kube-apiserver" && -x "$out/bin/etcd" ]]; then
	echo "$out/bin"
	exit 0
fi

staging_version="v0.${K8S_VERSION#v1.}"
src="$out/src"
mkdir -p "$src" "$out/bin"
cd "$src"

mod_file=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
[[ -n "$mod_file" ]] || { echo "build-controlplane: cannot download k8s.io/kubernetes@$K8S_VERSION" >&2; exit 1; }
etcd_version=$(sed -n 's/^\s*go.etcd.io\/etcd\/server\/v3 \(v[^ ]*\).*/\1/p' "$mod_file")
go_version=$(sed -n 's/^go \(.*\)/\1/p' "$mod_file")

{
	echo "module boris.test/k8s-controlplane"
	echo
	echo "go $go_version"
	echo
	echo "require ("
	echo "	k8s.io/kubernetes $K8S_VERSION"
	echo "	go.etcd.io/etcd/server/v3 $etcd_version"
	echo ")"
	echo
	echo "replace ("
	sed -n 's/^\s*\(k8s.io\/[^ ]*\) => \.\/staging\/.*/\t\1 => \1 '"$staging_version"'/p' "$mod_file"
	echo ")"
} >go.mod
cat >tools.go <<'GO'
//go:build tools

// Package tools names the commands this module builds.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
GO

echo "build-controlplane: kube-apiserver $K8S_VERSION and etcd $etcd_version into $out/bin (the first time about 10 minutes)" >&2
nice -n 19 go mod tidy >&2
CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags '-s -w' -o "$out/bin/" \
	k8s.io/kubernetes/cmd/kube-apiserver go.etcd.io/etcd/server/v3 >&2
mv "$out/bin/v3" "$out/bin/etcd" 2>/dev/null || true
[[ -x "$out/bin/etcd" ]] || mv "$out/bin/server" "$out/bin/etcd"
echo "$out/bin"
