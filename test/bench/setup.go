package main

import (
	"context"
	"os/exec"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// peerPackage is the npm package of the peer server, pinned in package.json.
const peerPackage = "@modelcontextprotocol/server-filesystem"

// server is one MCP server under test: how to start it on a directory and
// which tool call reads a file.
type server struct {
	name    string                           // column name in the report
	tool    string                           // tool that reads a file
	command func(dir string) *exec.Cmd       // starts the server scoped to dir
	args    func(file string) map[string]any // arguments that read file
}

// environment describes the machine and versions for the report.
type environment struct {
	benchkit.Environment
	PeerVersion string `json:"server_filesystem"`
}

// borisServer describes boris run from bin with its view tool.
func borisServer(bin string) server {
	return server{
		name: "boris",
		tool: "view",
		command: func(dir string) *exec.Cmd {
			return exec.Command(bin, "--workdir", dir)
		},
		args: func(file string) map[string]any { return map[string]any{"path": file} },
	}
}

// peerServer describes server-filesystem run by node with read_text_file.
func peerServer(node, js string) server {
	return server{
		name: "server-filesystem",
		tool: "read_text_file",
		command: func(dir string) *exec.Cmd {
			return exec.Command(node, js, dir)
		},
		args: func(file string) map[string]any { return map[string]any{"path": file} },
	}
}

// describeEnvironment collects the Go, OS, node and peer versions.
func describeEnvironment(ctx context.Context, cfg config, peer benchkit.NodePackage) (environment, error) {
	machine, version, err := benchkit.DescribeEnvironment(ctx, cfg.node, peer)
	return environment{Environment: machine, PeerVersion: version}, err
}
