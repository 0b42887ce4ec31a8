package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Time limits that turn a hung server into an error instead of a hung run.
const (
	spawnTimeout = 30 * time.Second // one spawn, handshake and close
	callTimeout  = 2 * time.Minute  // one tool call
)

// startup is the key of the spawn→initialized figure.
const startup = "startup"

// figure is one timed tool call: what is sent and what its result must be.
type figure struct {
	key, label    string // key in -json and stats; label in the table
	tool          string
	warmup, timed int
	args          func(fx twin) map[string]any
	check         func(fx twin, res *mcp.CallToolResult, err error) error
}

// figures lists the timed calls, in the order they are measured.
func figures(cfg config) []figure {
	return []figure{{
		key: "read_text_file", label: "read_text_file", tool: "read_text_file", warmup: cfg.warmup, timed: cfg.reads,
		args: func(fx twin) map[string]any { return map[string]any{"path": fx.Small.Path} },
		check: func(fx twin, res *mcp.CallToolResult, err error) error {
			return benchkit.CheckResult(res, err, fx.Small)
		},
	}, {
		key: "edit_file_dry_run", label: "edit_file dryRun", tool: "edit_file", warmup: cfg.warmup, timed: cfg.edits,
		args: func(fx twin) map[string]any {
			return map[string]any{"path": fx.Edit.Path, "dryRun": true,
				"edits": []map[string]any{{"oldText": fx.Edit.OldLine, "newText": fx.Edit.NewLine}}}
		},
		check: func(fx twin, res *mcp.CallToolResult, err error) error { return checkEdit(res, err, fx.Edit) },
	}, {
		key: "directory_tree", label: "directory_tree", tool: "directory_tree", warmup: cfg.treeWarmup, timed: cfg.treeCalls,
		args:  func(fx twin) map[string]any { return map[string]any{"path": fx.Tree} },
		check: func(fx twin, res *mcp.CallToolResult, err error) error { return checkTree(res, err, fx.Stats) },
	}, {
		key: "search_files", label: "search_files", tool: "search_files", warmup: cfg.treeWarmup, timed: cfg.treeCalls,
		args: func(fx twin) map[string]any { return map[string]any{"path": fx.Tree, "pattern": searchPattern} },
		check: func(fx twin, res *mcp.CallToolResult, err error) error {
			return checkSearch(res, err, fx.Tree, fx.Stats.Matches)
		},
	}}
}

// results is what a run measured beyond each server's stats: the figures
// left out under -partial, with why.
type results struct {
	skipped []string
}

// measure times the servers' start-up, then every figure on one session
// per server, the servers taking turns in runs of calls.
func measure(ctx context.Context, cfg config, servers []*server, logw io.Writer) (results, error) {
	var r results
	fmt.Fprintf(logw, "%s: 1 warm-up + %d timed spawns per server\n", prog, cfg.spawns)
	if err := measureStartup(ctx, cfg, servers); err != nil {
		return r, err
	}
	for _, s := range servers {
		if err := open(ctx, cfg, s); err != nil {
			return r, err
		}
	}
	defer closeAll(servers)
	for _, f := range figures(cfg) {
		if lacking := lackingTool(servers, f.tool); lacking != "" {
			if !cfg.partial {
				return r, fmt.Errorf("%s offers no %s tool (tools: %s); -partial measures the rest",
					lacking, f.tool, strings.Join(toolNames(servers, lacking), ", "))
			}
			r.skipped = append(r.skipped, fmt.Sprintf("%s (%s has no such tool)", f.label, lacking))
			continue
		}
		fmt.Fprintf(logw, "%s: %d warm-up + %d timed %s calls per server\n", prog, f.warmup, f.timed, f.label)
		if err := measureFigure(ctx, servers, f, cfg.block); err != nil {
			return r, err
		}
	}
	return r, closeAll(servers)
}

// measureStartup times one untimed warm-up spawn of each server (warm file
// caches) and then cfg.spawns timed ones, taking turns.
func measureStartup(ctx context.Context, cfg config, servers []*server) error {
	ds := make([][]time.Duration, len(servers))
	for i := range cfg.spawns + 1 {
		for _, k := range benchkit.Turns(len(servers), i) {
			d, err := spawnOnce(ctx, cfg, servers[k])
			if err != nil {
				return fmt.Errorf("%s: spawn %d: %w", servers[k].name, i, err)
			}
			if i > 0 {
				ds[k] = append(ds[k], d)
			}
		}
	}
	for k, s := range servers {
		s.stats[startup] = benchkit.Summarize(ds[k])
	}
	return nil
}

// session is the connection to one server that calls are timed on.
type session interface {
	callTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, time.Duration, error)
	toolNames(ctx context.Context) ([]string, error)
	close() error
}

// sdkSession is a session of the go-sdk client (-client sdk): its times
// include the client's decoding of every result.
type sdkSession struct{ cs *mcp.ClientSession }

func (s sdkSession) callTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, time.Duration, error) {
	start := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	return res, time.Since(start), err
}

func (s sdkSession) toolNames(ctx context.Context) ([]string, error) {
	var names []string
	for tool, err := range s.cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tool.Name)
	}
	return names, nil
}

func (s sdkSession) close() error { return s.cs.Close() }

// rawSession is benchkit's minimal JSON-RPC client (-client raw, the
// default): its times end when the response's last byte is read, before
// anything of the result is decoded.
type rawSession struct{ rs *benchkit.RawSession }

func (s rawSession) callTool(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, time.Duration, error) {
	return s.rs.CallTool(name, args)
}

func (s rawSession) toolNames(context.Context) ([]string, error) { return s.rs.ToolNames() }

func (s rawSession) close() error { return s.rs.Close() }

// connect spawns s and completes the handshake (initialize, its response,
// notifications/initialized) with the client cfg.client names, returning
// the session, the server's stderr and the time from spawn to
// initialized. Neither client has the roots capability, so neither server
// asks for roots/list and both see the same client.
func connect(ctx context.Context, cfg config, s *server) (session, *bytes.Buffer, time.Duration, error) {
	cmd := s.command()
	stderr := new(bytes.Buffer)
	cmd.Stderr = stderr
	if cfg.client == "raw" {
		rs, elapsed, err := benchkit.StartRaw(cmd, cfg.protocol)
		if err != nil {
			return nil, stderr, 0, fmt.Errorf("spawn %s: %w%s", s.name, err, stderrNote(stderr))
		}
		rs.Timeout = callTimeout
		return rawSession{rs}, stderr, elapsed, nil
	}
	t := benchkit.CommandTransport(cmd)
	client := benchkit.NewClient("boris-bench-fstools")
	start := time.Now()
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: cfg.protocol})
	elapsed := time.Since(start)
	if err != nil {
		return nil, stderr, 0, fmt.Errorf("spawn %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return sdkSession{cs}, stderr, elapsed, nil
}

// spawnOnce starts s, completes the handshake, closes the session (which
// waits for the server to exit) and returns the spawn→initialized time.
func spawnOnce(ctx context.Context, cfg config, s *server) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, spawnTimeout)
	defer cancel()
	cs, stderr, d, err := connect(ctx, cfg, s)
	if err != nil {
		return 0, err
	}
	if err := cs.close(); err != nil {
		return 0, fmt.Errorf("close %s: %w%s", s.name, err, stderrNote(stderr))
	}
	return d, nil
}

// open starts the session s's calls are measured on and lists its tools.
func open(ctx context.Context, cfg config, s *server) error {
	cs, stderr, _, err := connect(ctx, cfg, s)
	if err != nil {
		return err
	}
	s.cs, s.stderr, s.tools = cs, stderr, map[string]bool{}
	names, err := cs.toolNames(ctx)
	if err != nil {
		return fmt.Errorf("%s: tools/list: %w%s", s.name, err, stderrNote(stderr))
	}
	for _, name := range names {
		s.tools[name] = true
	}
	return nil
}

// closeAll closes the servers' sessions, returning the first error.
func closeAll(servers []*server) error {
	var first error
	for _, s := range servers {
		if s.cs == nil {
			continue
		}
		if err := s.cs.close(); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w%s", s.name, err, stderrNote(s.stderr))
		}
		s.cs = nil
	}
	return first
}

// lackingTool names the first server that offers no tool, or "".
func lackingTool(servers []*server, tool string) string {
	for _, s := range servers {
		if !s.tools[tool] {
			return s.name
		}
	}
	return ""
}

// toolNames lists, sorted, the tools the server named name offers.
func toolNames(servers []*server, name string) []string {
	var names []string
	for _, s := range servers {
		if s.name == name {
			for t := range s.tools {
				names = append(names, t)
			}
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}

// measureFigure makes f's warm-up and timed calls on every server, taking
// turns in runs of up to block calls (benchkit.TakeTurns), checking every
// result.
func measureFigure(ctx context.Context, servers []*server, f figure, block int) error {
	ds := make([][]time.Duration, len(servers))
	total := f.warmup + f.timed
	err := benchkit.TakeTurns(len(servers), total, benchkit.RunLength(block, total), func(k, i int) error {
		d, err := callOnce(ctx, servers[k], f)
		if err != nil {
			return fmt.Errorf("%s: %s call %d: %w%s", servers[k].name, f.label, i, err, stderrNote(servers[k].stderr))
		}
		if i >= f.warmup {
			ds[k] = append(ds[k], d)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, s := range servers {
		s.stats[f.key] = benchkit.Summarize(ds[k])
	}
	return nil
}

// callOnce makes one call of f on s and checks its result; the time
// covers the round trip only.
func callOnce(ctx context.Context, s *server, f figure) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, d, err := s.cs.callTool(ctx, f.tool, f.args(s.fx))
	return d, f.check(s.fx, res, err)
}

// stderrNote formats a server's captured stderr for an error message.
func stderrNote(stderr *bytes.Buffer) string {
	if stderr == nil {
		return ""
	}
	s := strings.TrimSpace(stderr.String())
	if s == "" {
		return ""
	}
	return "\nserver stderr:\n" + benchkit.Clip(s)
}
