// Command extension measures the per-call latency of a trivial extension
// tool (docs/reference/core.md#extensions), in one run on this machine: a hello-world tool written
// against the shell SDK, served by `boris --extensions` and by
// mcp-bash-framework itself from the same project directory, beside two
// of Boris's built-in tools (bash `echo hi`, which also starts a process,
// and view of a small file, which does not).
//
// mcp-bash-framework is not fetched: pass a checkout with -framework (or
// set MCPBASH_HOME), e.g.
//
//	git clone https://github.com/yaniv-golan/mcp-bash-framework /tmp/mcp-bash
//	go run ./test/bench/extension -framework /tmp/mcp-bash
//
// It needs jq (the framework's JSON tool). Without a framework checkout
// it measures Boris alone and says so. Every result is checked; a call
// that fails ends the run. Targets (issue 13): ≥ 20× lower latency than
// mcp-bash-framework, ≤ 5 ms over a built-in tool; only reported.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

const prog = "bench-extension"

type config struct {
	framework     string
	calls, warmup int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.framework, "framework", os.Getenv("MCPBASH_HOME"), "an mcp-bash-framework checkout (its bin/mcp-bash serves the same project); empty: measure Boris alone")
	flag.IntVar(&cfg.calls, "calls", 200, "timed calls of each kind")
	flag.IntVar(&cfg.warmup, "warmup", 20, "untimed calls of each kind first")
	flag.Parse()
	if cfg.calls < 1 {
		benchkit.ExitUsage(prog, "-calls must be at least 1")
	}
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error { return run(ctx, cfg) }))
}

// measured is one kind of call on one server.
type measured struct {
	name  string
	call  func() error
	times []time.Duration
}

func run(ctx context.Context, cfg config) error {
	ws, err := benchkit.NewWorkspace(ctx, "bench-extension-", prog)
	if err != nil {
		return err
	}
	defer ws.Close()
	boris, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris")
	if err != nil {
		return err
	}
	project := filepath.Join(ws.Dir, "project")
	if err := writeProject(project); err != nil {
		return err
	}
	work := filepath.Join(ws.Dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	small := filepath.Join(work, "small.txt")
	if err := os.WriteFile(small, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		return err
	}
	opts := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	cmd := exec.Command(boris, "--workdir", work, "--extensions", project, "--checkpoints", "off")
	bs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(cmd), opts)
	if err != nil {
		return fmt.Errorf("start boris: %w", err)
	}
	defer bs.Close()
	kinds := []*measured{
		{name: "boris hello (extension)", call: checked(ctx, bs, "hello", nil, `"message":"hello"`)},
		{name: "boris bash echo hi", call: checked(ctx, bs, "bash", map[string]any{"command": "echo hi"}, "hi")},
		{name: "boris view", call: checked(ctx, bs, "view", map[string]any{"path": small}, "three")},
	}
	peer := "not measured: no -framework checkout given"
	if cfg.framework != "" {
		fw := exec.Command(filepath.Join(cfg.framework, "bin", "mcp-bash"))
		fw.Env = append(os.Environ(), "MCPBASH_PROJECT_ROOT="+project, "MCPBASH_TOOL_ALLOWLIST=hello")
		fs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(fw), opts)
		if err != nil {
			return fmt.Errorf("start mcp-bash-framework from %s: %w", cfg.framework, err)
		}
		defer fs.Close()
		peer = "mcp-bash-framework " + frameworkVersion(cfg.framework)
		kinds = append(kinds, &measured{name: "mcp-bash-framework hello", call: checked(ctx, fs, "hello", nil, `"message":"hello"`)})
	}
	fmt.Fprintf(os.Stderr, "%s: %d+%d calls of each kind, taking turns\n", prog, cfg.warmup, cfg.calls)
	for i := range cfg.warmup + cfg.calls {
		for _, k := range kinds {
			start := time.Now()
			if err := k.call(); err != nil {
				return fmt.Errorf("%s: %w", k.name, err)
			}
			if i >= cfg.warmup {
				k.times = append(k.times, time.Since(start))
			}
		}
	}
	report(kinds, peer)
	return nil
}

// checked returns one call of tool whose text must contain want.
func checked(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, want string) func() error {
	if args == nil {
		args = map[string]any{}
	}
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	return func() error {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if txt := benchkit.ResultText(res); res.IsError || !strings.Contains(txt, want) {
			return fmt.Errorf("unexpected result (error %v): %s", res.IsError, benchkit.Clip(txt))
		}
		return nil
	}
}

// writeProject writes the project both servers serve: the framework's
// layout, one tool.
func writeProject(dir string) error {
	files := map[string]string{
		"server.d/server.meta.json":  `{"name":"bench","version":"1.0.0"}`,
		"tools/hello/tool.meta.json": `{"name":"hello","description":"Say hello","inputSchema":{"type":"object","properties":{}},"timeoutSecs":5}`,
		"tools/hello/tool.sh": "#!/usr/bin/env bash\nset -euo pipefail\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\n" +
			"mcp_result_success \"$(mcp_json_obj message \"hello\")\"\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// frameworkVersion reads the checkout's VERSION file.
func frameworkVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "VERSION"))
	if errors.Is(err, os.ErrNotExist) {
		return "(no VERSION file)"
	}
	return strings.TrimSpace(string(b))
}

// report prints the table and the verdicts.
func report(kinds []*measured, peer string) {
	fmt.Printf("peer: %s\n%-28s %12s %12s\n", peer, "call", "p50", "p99")
	stats := map[string]benchkit.Stats{}
	for _, k := range kinds {
		s := benchkit.Summarize(k.times)
		stats[k.name] = s
		fmt.Printf("%-28s %12s %12s\n", k.name, benchkit.FormatMs(s.P50), benchkit.FormatMs(s.P99))
	}
	hello, bash := stats["boris hello (extension)"], stats["boris bash echo hi"]
	over := benchkit.Ms(hello.P50 - bash.P50)
	targets := []benchkit.Target{{Name: "extension hello p50 over built-in bash p50", Value: over, Limit: 5, Unit: "ms", Met: over <= 5}}
	if fw, ok := stats["mcp-bash-framework hello"]; ok {
		r := benchkit.Ratio(benchkit.Ms(hello.P50), benchkit.Ms(fw.P50))
		fmt.Printf("mcp-bash-framework / boris hello p50: %.1f×\n", 1/r)
		targets = append(targets, benchkit.Target{Name: "boris / mcp-bash-framework hello p50 (20× lower)", Value: r, Limit: 0.05, Unit: "ratio", Met: r <= 0.05})
	}
	benchkit.WriteTargets(os.Stdout, targets)
}
