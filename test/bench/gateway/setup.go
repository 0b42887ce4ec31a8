package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// peerPackage is the npm package of the peer gateway, pinned in package.json.
const peerPackage = "supergateway"

// binaries are the programs under test.
type binaries struct {
	boris   string // the core, built from ./cmd/boris
	gateway string // boris-gateway, built from ./cmd/boris-gateway
	peerJS  string // supergateway's entry script
}

// environment describes the machine and versions for the report.
type environment struct {
	benchkit.Environment
	PeerVersion string `json:"supergateway"`
}

// prepare builds boris and boris-gateway into ws (boris-gateway finds the
// core next to itself), installs supergateway if needed and describes the
// run's environment.
func prepare(ctx context.Context, cfg config, ws *benchkit.Workspace, logw io.Writer) (binaries, environment, error) {
	var bins binaries
	var err error
	fmt.Fprintln(logw, "bench-gateway: building boris and boris-gateway")
	if bins.boris, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
		return bins, environment{}, err
	}
	if bins.gateway, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris-gateway"); err != nil {
		return bins, environment{}, err
	}
	peer := benchkit.NodePackage{Dir: filepath.Join(ws.Root, "test", "bench", "gateway"), Name: peerPackage}
	if bins.peerJS, err = peer.Ensure(ctx, "bench-gateway", logw); err != nil {
		return bins, environment{}, err
	}
	env, err := describeEnvironment(ctx, cfg, peer)
	return bins, env, err
}

// describeEnvironment collects the Go, OS, node and supergateway versions.
func describeEnvironment(ctx context.Context, cfg config, peer benchkit.NodePackage) (environment, error) {
	machine, version, err := benchkit.DescribeEnvironment(ctx, cfg.node, peer)
	return environment{Environment: machine, PeerVersion: version}, err
}
