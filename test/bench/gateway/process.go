package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// Time limits that turn a hung gateway into an error instead of a hung run.
const (
	startTimeout = 30 * time.Second // from exec to the "listening" log line
	stopTimeout  = 15 * time.Second // from SIGTERM to exit, before SIGKILL
	tailLines    = 20               // output lines kept for error messages
)

// gatewaySpec is one gateway under test: how to start it and how to find
// its MCP endpoint in its output.
type gatewaySpec struct {
	name string
	// command returns the gateway process, not yet started.
	command func() (*exec.Cmd, error)
	// ready matches the output line that says the gateway is listening.
	ready *regexp.Regexp
	// endpoint turns ready's submatches into the MCP endpoint URL.
	endpoint func(match []string) string
}

// borisGateway runs boris-gateway on a free loopback port, serving cores
// scoped to the fixture. Authentication is off (--auth none, loopback
// only), as supergateway has none. The session limit leaves room for the
// memory phase's open sessions.
func borisGateway(bins binaries, fx benchkit.Fixture, cfg config, flags ...string) gatewaySpec {
	maxSessions := max(64, cfg.open+cfg.workers+8)
	name := strings.TrimSpace("boris-gateway " + strings.Join(flags, " "))
	return gatewaySpec{
		name: name,
		command: func() (*exec.Cmd, error) {
			args := append([]string{"--listen", "127.0.0.1:0", "--auth", "none",
				"--max-sessions", strconv.Itoa(maxSessions)}, flags...)
			args = append(args, "--core", bins.boris, "--", "--workdir", fx.Dir)
			return exec.Command(bins.gateway, args...), nil
		},
		ready:    regexp.MustCompile(`msg="boris-gateway listening" url=(http://\S+)`),
		endpoint: func(m []string) string { return m[1] },
	}
}

// superGateway runs supergateway in stateful Streamable HTTP mode, one
// child per session, the child being the same boris core. supergateway
// runs its --stdio command through a shell, so the paths are quoted.
func superGateway(node string, bins binaries, fx benchkit.Fixture) gatewaySpec {
	return gatewaySpec{
		name: "supergateway",
		command: func() (*exec.Cmd, error) {
			// supergateway has no way to report a port it picked itself,
			// so a free one is passed to it.
			port, err := benchkit.FreePort()
			if err != nil {
				return nil, err
			}
			stdio := shellQuote(bins.boris) + " --workdir " + shellQuote(fx.Dir)
			return exec.Command(node, bins.peerJS, "--stdio", stdio,
				"--outputTransport", "streamableHttp", "--stateful",
				"--port", strconv.Itoa(port)), nil
		},
		ready:    regexp.MustCompile(`StreamableHttp endpoint: http://localhost:(\d+)(/\S*)`),
		endpoint: func(m []string) string { return "http://127.0.0.1:" + m[1] + m[2] },
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// gatewayProc is a running gateway.
type gatewayProc struct {
	name   string
	cmd    *exec.Cmd
	url    string        // MCP endpoint
	log    *os.File      // the gateway's stdout+stderr, a file (see startGateway)
	exited chan struct{} // closed once the process is reaped
}

// logPoll is how often startGateway reads the output file for the
// "listening" line.
const logPoll = 10 * time.Millisecond

// startGateway starts spec and waits for its "listening" line.
//
// Both gateways log every call. Their output goes to a file, read for the
// "listening" line and then only for an error message, not to a pipe this
// process drains: the drain would wake the process that times the calls
// twice in every call it times, which no client of a real gateway (whose
// log goes to a file or the journal, on another machine than the agent)
// ever pays.
func startGateway(ctx context.Context, spec gatewaySpec) (*gatewayProc, error) {
	cmd, err := spec.command()
	if err != nil {
		return nil, err
	}
	log, err := os.CreateTemp("", "bench-gateway-*.log")
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.name, err)
	}
	os.Remove(log.Name()) // open (and read) until this process exits
	cmd.Stdout, cmd.Stderr = log, log
	// Without BORIS_GATEWAY_* settings: the benchmark runs boris-gateway
	// with its defaults (info logs in text, which carry the listening line;
	// no authentication), whatever the caller's shell holds.
	cmd.Env = benchkit.WithoutEnv(os.Environ(), "BORIS_GATEWAY_")
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", spec.name, err)
	}
	g := &gatewayProc{name: spec.name, cmd: cmd, log: log, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(g.exited) }()
	deadline := time.After(startTimeout)
	tick := time.NewTicker(logPoll)
	defer tick.Stop()
	for {
		for _, line := range g.lines() {
			if m := spec.ready.FindStringSubmatch(line); m != nil {
				g.url = spec.endpoint(m)
				return g, nil
			}
		}
		select {
		case <-tick.C:
			continue
		case <-g.exited:
			err = errors.New("exited before listening")
		case <-deadline:
			err = fmt.Errorf("not listening after %v", startTimeout)
		case <-ctx.Done():
			err = ctx.Err()
		}
		break
	}
	g.stop()
	return nil, fmt.Errorf("start %s: %w%s", spec.name, err, g.note())
}

// lines returns the gateway's output so far, line by line.
func (g *gatewayProc) lines() []string {
	fi, err := g.log.Stat()
	if err != nil {
		return nil
	}
	data, err := io.ReadAll(io.NewSectionReader(g.log, 0, fi.Size()))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// stop sends SIGTERM, so the gateway ends its sessions and their cores
// the way it would in production, and waits for it to exit; after
// stopTimeout it is killed. It reports whether the gateway exited on its own.
func (g *gatewayProc) stop() bool {
	return benchkit.Terminate(g.cmd, g.exited, stopTimeout)
}

// note formats the gateway's last output lines for an error message.
func (g *gatewayProc) note() string {
	lines := g.lines()
	if len(lines) == 0 || lines[0] == "" {
		return ""
	}
	lines = lines[max(0, len(lines)-tailLines):]
	for i, l := range lines {
		lines[i] = benchkit.Clip(l)
	}
	return "\ngateway output (last lines):\n" + strings.Join(lines, "\n")
}
