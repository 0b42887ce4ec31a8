package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// peerPackage is supergateway, pinned in test/bench/gateway's package.json
// and package-lock.json: both benchmarks use the one installation.
const peerPackage = "supergateway"

// peerListening is supergateway's log line naming its endpoint.
var peerListening = regexp.MustCompile(`StreamableHttp endpoint: http://localhost:(\d+)(/\S*)`)

// runPeer measures supergateway (--stateful --outputTransport
// streamableHttp) under the same load, serving the same boris: one stdio
// core per session, all in one working directory (it has no principals:
// the tokens are sent and ignored) and with no isolation but the cores'
// own sandbox. Without node, or without npm to install it, it says so and
// skips.
func runPeer(ctx context.Context, cfg config, ws *benchkit.Workspace, boris string, principals []principal, out, logw io.Writer) error {
	peer := benchkit.NodePackage{Dir: filepath.Join(ws.Root, "test", "bench", "gateway"), Name: peerPackage}
	if why := peerMissing(cfg.node, peer); why != "" {
		fmt.Fprintf(out, "\nsupergateway: skipped: %s\n", why)
		return nil
	}
	js, err := peer.Ensure(ctx, "scale", logw)
	if err != nil {
		return err
	}
	env, version, err := benchkit.DescribeEnvironment(ctx, cfg.node, peer)
	if err != nil {
		return err
	}
	dir := filepath.Join(ws.Dir, "work", "supergateway")
	if err := writeFixture(dir); err != nil {
		return err
	}
	fmt.Fprintln(logw, "scale: starting supergateway")
	p, err := startPeer(ctx, cfg.node, js, boris, dir)
	if err != nil {
		return err
	}
	defer p.kill()
	m, err := measure(ctx, cfg, p.url, p.cmd.Process.Pid, p.stop, principals, boris, logw)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nsupergateway %s (node %s), the same load: one core per session, no isolation but the cores' own sandbox\n", version, env.Node)
	writeTable(out, cfg, m)
	benchkit.WriteLeaks(out, m.left) // its own doing: they are killed now, and the run does not fail for them
	return nil
}

// peerMissing says why supergateway cannot run here, or "".
func peerMissing(node string, peer benchkit.NodePackage) string {
	if _, err := exec.LookPath(node); err != nil {
		return fmt.Sprintf("%s is not on PATH (supergateway needs node v20 or newer; -node names another)", node)
	}
	if js, err := peer.Entry(); err == nil {
		if _, err := os.Stat(js); err == nil {
			return "" // installed already
		}
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "npm is not on PATH (it installs supergateway, pinned in test/bench/gateway, with npm ci)"
	}
	return ""
}

// peerProc is a running supergateway.
type peerProc struct {
	cmd    *exec.Cmd
	url    string
	log    *os.File // its output: a file, not a pipe this process would drain while it times calls
	exited chan struct{}
}

// startPeer starts supergateway on a free loopback port, in a process
// group of its own, and waits for its endpoint line.
func startPeer(ctx context.Context, node, js, boris, dir string) (*peerProc, error) {
	port, err := benchkit.FreePort() // it cannot report a port it picked itself
	if err != nil {
		return nil, err
	}
	log, err := os.CreateTemp("", "scale-supergateway-*.log")
	if err != nil {
		return nil, err
	}
	os.Remove(log.Name()) // open until this process ends
	// It runs --stdio through a shell: the paths are quoted.
	cmd := exec.Command(node, js, "--stdio", shellQuote(boris)+" --workdir "+shellQuote(dir),
		"--outputTransport", "streamableHttp", "--stateful", "--port", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start supergateway: %w", err)
	}
	p := &peerProc{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(log.Fd())))
		if m := peerListening.FindStringSubmatch(string(data)); m != nil {
			p.url = "http://127.0.0.1:" + m[1] + m[2]
			return p, nil
		}
		select {
		case <-p.exited:
			err = errors.New("exited before listening")
		case <-ctx.Done():
			err = ctx.Err()
		case <-time.After(10 * time.Millisecond):
			if time.Now().Before(deadline) {
				continue
			}
			err = errors.New("not listening after 30 s")
		}
		p.kill()
		return nil, fmt.Errorf("start supergateway: %w\n%s", err, benchkit.Clip(string(data)))
	}
}

// stop ends supergateway with SIGTERM (SIGKILL after 15 s), as it would
// end in production. Safe to call more than once.
func (p *peerProc) stop() {
	select {
	case <-p.exited:
	default:
		benchkit.Terminate(p.cmd, p.exited, 15*time.Second)
	}
}

// kill stops supergateway and kills what it left in its process group:
// cores it did not end itself.
func (p *peerProc) kill() {
	p.stop()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.log.Close()
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
