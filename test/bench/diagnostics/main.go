// Command diagnostics measures what diagnostics after edits cost (make
// bench-diagnostics): the latency a str_replace gains with a language
// server checking it (first edit and warm, p50 and p99, against the same
// edits with --diagnostics off), the memory of a session's server, and
// its CPU while idle. Go: a copy of a module from the module cache
// (go-sdk, 100+ files); TypeScript: a generated 40-file project.
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

	"github.com/mjkoo/boris/internal/npmcache"
	"github.com/mjkoo/boris/internal/procstat"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

const prog = "bench-diagnostics"

type config struct {
	edits           int
	gopls, tsserver string
	idle            time.Duration
}

func main() {
	var cfg config
	root, _ := npmcache.Root()
	tsDefault, _ := filepath.Glob(filepath.Join(root, "npm", "boris-lsp-servers-*", "node_modules", ".bin", "typescript-language-server"))
	flag.IntVar(&cfg.edits, "edits", 30, "warm edits timed per configuration")
	flag.StringVar(&cfg.gopls, "gopls", filepath.Join(root, "gopls", "v0.23.0", "gopls"), "gopls binary (make test installs it there)")
	flag.StringVar(&cfg.tsserver, "tsserver", first(tsDefault), "typescript-language-server (make test installs it from test/lsp)")
	flag.DurationVar(&cfg.idle, "idle", 10*time.Second, "how long idle CPU is measured")
	flag.Parse()
	os.Exit(benchkit.Run(prog, os.Stderr, func(ctx context.Context) error { return run(ctx, cfg) }))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// project is one language's tree and the edits made to it: base, a
// text of file, becomes harmless and broken in turn, inside a function
// body (an edit of a Go package clause would reload the module).
type project struct {
	name, lsp, file        string
	base, harmless, broken string
	make                   func(dir string) error
}

func run(ctx context.Context, cfg config) error {
	ws, err := benchkit.NewWorkspace(ctx, "bench-diagnostics-", prog)
	if err != nil {
		return err
	}
	defer ws.Close()
	boris, err := benchkit.Build(ctx, ws.Root, ws.Dir, "boris")
	if err != nil {
		return err
	}
	sdk, err := goModuleDir(ctx, "github.com/modelcontextprotocol/go-sdk")
	if err != nil {
		return err
	}
	projects := []project{
		{name: "Go (go-sdk module copy)", lsp: "go=" + cfg.gopls, file: "mcp/tool.go",
			base: "\n\treturn false\n}", harmless: "\n\treturn false // ok\n}", broken: "\n\treturn undefinedThing42\n}",
			make: func(dir string) error { return copyTree(ctx, sdk, dir) }},
		{name: "TypeScript (40 files)", lsp: "typescript=" + cfg.tsserver + " --stdio", file: "src/m0.ts",
			base: "export const v0: number = 0;", harmless: "export const v0: number = 0; // ok", broken: "export const v0: number = \"zero\";",
			make: tsProject},
	}
	fmt.Printf("%-26s %-5s %12s %12s %12s %12s %10s %10s\n", "project", "diag", "first edit", "warm p50", "warm p99", "added p50", "server MB", "idle CPU")
	for _, p := range projects {
		var offP50 time.Duration
		for _, mode := range []string{"off", "auto"} {
			dir := filepath.Join(ws.Dir, strings.Fields(p.name)[0]+"-"+mode)
			if err := p.make(dir); err != nil {
				return err
			}
			r, err := measure(ctx, boris, dir, mode, p, cfg)
			if err != nil {
				return fmt.Errorf("%s, diagnostics %s: %w", p.name, mode, err)
			}
			added := "-"
			if mode == "off" {
				offP50 = r.warm.P50
			} else {
				added = benchkit.FormatMs(r.warm.P50 - offP50)
			}
			fmt.Printf("%-26s %-5s %12s %12s %12s %12s %10s %10s\n", p.name, mode, benchkit.FormatMs(r.first), benchkit.FormatMs(r.warm.P50), benchkit.FormatMs(r.warm.P99), added, r.mem, r.cpu)
		}
	}
	return nil
}

type result struct {
	first    time.Duration
	warm     benchkit.Stats
	mem, cpu string
}

// measure times edits in dir through one boris: the first, then warm
// ones that break and fix the file in turn, each waiting for its
// diagnostics (--diagnostics-wait 30s: the result waits for them all).
func measure(ctx context.Context, boris, dir, mode string, p project, cfg config) (result, error) {
	cmd := exec.Command(boris, "--workdir", dir, "--diagnostics", mode, "--diagnostics-wait", "30s", "--lsp", p.lsp, "--checkpoints", "off")
	cs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return result{}, err
	}
	defer cs.Close()
	edit := func(old, new string) (time.Duration, string, error) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "str_replace", Arguments: map[string]any{"path": p.file, "old_str": old, "new_str": new}})
		d := time.Since(start)
		if err != nil {
			return d, "", err
		}
		if res.IsError {
			return d, "", errors.New(benchkit.ResultText(res))
		}
		return d, benchkit.ResultText(res), nil
	}
	var r result
	if r.first, _, err = edit(p.base, p.harmless); err != nil {
		return r, err
	}
	cur := p.harmless
	var times []time.Duration
	for i := range cfg.edits {
		next := p.harmless
		if i%2 == 0 {
			next = p.broken
		}
		d, text, err := edit(cur, next)
		if err != nil {
			return r, err
		}
		if mode == "auto" && i == 0 && !strings.Contains(text, "[diagnostics]") {
			fmt.Fprintf(os.Stderr, "%s: the breaking edit reported no diagnostics: %s\n", p.name, benchkit.Clip(text))
		}
		cur = next
		times = append(times, d)
	}
	r.warm = benchkit.Summarize(times)
	r.mem, r.cpu = serverUsage(cmd.Process.Pid, cfg.idle)
	return r, nil
}

// serverUsage is the RSS of the core's descendants but itself (the
// server and anything it runs), and their CPU over idle.
func serverUsage(core int, idle time.Duration) (mem, cpu string) {
	pids := benchkit.Descendants(core)[1:]
	if len(pids) == 0 {
		return "-", "-"
	}
	var rss int64
	for _, p := range pids {
		u, err := benchkit.ReadTree(p, "")
		if err == nil {
			rss += u.GatewayRSS
		}
	}
	cpuTime := func() (t time.Duration) {
		for _, p := range pids {
			if st, err := procstat.Read(p); err == nil {
				t += st.CPU
			}
		}
		return t
	}
	before := cpuTime()
	time.Sleep(idle)
	used := cpuTime() - before
	return fmt.Sprintf("%.0f", float64(rss)/(1<<20)), fmt.Sprintf("%.2f%%", 100*used.Seconds()/idle.Seconds())
}

// goModuleDir is where module (as go.mod requires it) lies in the
// module cache.
func goModuleDir(ctx context.Context, module string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyTree copies a read-only module cache directory into a writable dst.
func copyTree(ctx context.Context, src, dst string) error {
	if out, err := exec.CommandContext(ctx, "cp", "-r", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("copy %s: %w: %s", src, err, out)
	}
	return exec.CommandContext(ctx, "chmod", "-R", "u+w", dst).Run()
}

// tsProject writes a TypeScript project of 40 modules importing each other.
func tsProject(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		return err
	}
	files := map[string]string{"tsconfig.json": `{"compilerOptions":{"strict":true,"target":"es2022","module":"es2022","moduleResolution":"bundler"},"include":["src"]}`}
	for i := range 40 {
		body := fmt.Sprintf("export const v%d: number = %d;\nexport function f%d(x: number): number {\n  return x * %d;\n}\n", i, i, i, i)
		if i > 0 {
			body = fmt.Sprintf("import { f%d } from \"./m%d\";\n", i-1, i-1) + body + fmt.Sprintf("export const g%d = f%d(%d);\n", i, i-1, i)
		}
		files[fmt.Sprintf("src/m%d.ts", i)] = body
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
