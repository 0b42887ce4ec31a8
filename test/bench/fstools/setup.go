package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// peerPackage is the npm package of the peer server, pinned in
// test/bench/package.json with the main benchmark's.
const peerPackage = "@modelcontextprotocol/server-filesystem"

// server is one MCP server under test, with its copy of the fixture and,
// while the calls are measured, its session.
type server struct {
	name    string
	command func() *exec.Cmd // starts the server on fx.Dir
	fx      twin

	cs     session
	stderr *bytes.Buffer
	tools  map[string]bool // what tools/list offered
	stats  map[string]benchkit.Stats
}

// environment describes the machine and versions for the report.
type environment struct {
	benchkit.Environment
	PeerVersion string `json:"server_filesystem"`
}

// prepare builds (or locates) boris, installs the peer if needed, writes
// each server's copy of the fixture and returns both servers, boris first,
// with the run's environment.
func prepare(ctx context.Context, cfg config, ws *benchkit.Workspace, logw io.Writer) ([]*server, environment, error) {
	bin := cfg.boris
	if bin == "" {
		fmt.Fprintln(logw, prog+": building boris")
		var err error
		if bin, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
			return nil, environment{}, err
		}
	}
	peer := benchkit.NodePackage{Dir: filepath.Join(ws.Root, "test", "bench"), Name: peerPackage}
	js, err := peer.Ensure(ctx, prog, logw)
	if err != nil {
		return nil, environment{}, err
	}
	machine, version, err := benchkit.DescribeEnvironment(ctx, cfg.node, peer)
	if err != nil {
		return nil, environment{}, err
	}
	fmt.Fprintf(logw, "%s: writing twin fixtures (%d-file tree, %d-line edit file)\n", prog, cfg.files, cfg.editLines)
	var servers []*server
	for _, name := range []string{"boris", "server-filesystem"} {
		fx, err := writeTwin(filepath.Join(ws.Dir, "fixture-"+name), cfg.files, cfg.editLines) // not ws.Dir/boris: the binary
		if err != nil {
			return nil, environment{}, err
		}
		s := &server{name: name, fx: fx, stats: map[string]benchkit.Stats{}}
		if name == "boris" {
			s.command = borisCommand(bin, fx.Dir, filepath.Join(ws.Dir, "state"), cfg.checkpoints)
		} else {
			s.command = peerCommand(cfg.node, js, fx.Dir)
		}
		servers = append(servers, s)
	}
	return servers, environment{Environment: machine, PeerVersion: version}, nil
}

// borisCommand runs boris's filesystem toolset scoped to dir, started in
// dir as a client would start it in the project, with its checkpoint
// state (if any) under state rather than the user's.
func borisCommand(bin, dir, state, checkpoints string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(bin, "--toolset", "filesystem", "--allow-dir", dir, "--checkpoints", checkpoints)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		return cmd
	}
}

// peerCommand runs server-filesystem by node, scoped to dir.
func peerCommand(node, js, dir string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(node, js, dir)
		cmd.Dir = dir
		return cmd
	}
}
