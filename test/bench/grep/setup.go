package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// environment describes the machine and versions for the report.
type environment struct {
	goVersion string
	cpus      int
	rg        string
}

// buildBoris builds ./cmd/boris (from the module root) into dir.
func buildBoris(ctx context.Context, dir string) (string, error) {
	root, err := benchkit.ModuleRoot(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintln(os.Stderr, "bench/grep: building boris")
	return benchkit.Build(ctx, root, dir, "boris")
}

// ensureRipgrep returns the path of rg, installing Debian's ripgrep
// package when it is not on PATH.
func ensureRipgrep(ctx context.Context, rg string) (string, error) {
	if p, err := exec.LookPath(rg); err == nil {
		return p, nil
	}
	fmt.Fprintln(os.Stderr, "bench/grep: rg not found; apt-get install -y ripgrep")
	cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "ripgrep")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install ripgrep: %w", err)
	}
	return exec.LookPath("rg")
}

// describe collects the environment line of the report.
func describe(ctx context.Context, cfg config) (environment, error) {
	out, err := exec.CommandContext(ctx, cfg.rg, "--version").Output()
	if err != nil {
		return environment{}, fmt.Errorf("%s --version: %w", cfg.rg, err)
	}
	return environment{goVersion: runtime.Version(), cpus: runtime.NumCPU(), rg: firstLine(out)}, nil
}

// countFiles counts the regular files under root.
func countFiles(root string) (int, error) {
	files := 0
	err := filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files++
		}
		return nil
	})
	return files, err
}

// firstLine returns the first line of b.
func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return string(line)
}

// borisSession is a running boris with one session of benchkit's minimal
// client: a call's time runs from the request written to the response's
// last byte read, and its result is decoded after the clock stops, as
// rg's time ends with its output read and nothing parses that.
type borisSession struct {
	rs *benchkit.RawSession
}

// startBoris starts boris with its working directory at root.
func startBoris(_ context.Context, bin, root string) (*borisSession, error) {
	rs, _, err := benchkit.StartRaw(exec.Command(bin, "--workdir", root), "2025-11-25")
	if err != nil {
		return nil, fmt.Errorf("start boris: %w", err)
	}
	rs.Timeout = 2 * time.Minute
	return &borisSession{rs: rs}, nil
}

// close ends the session and the process.
func (b *borisSession) close() { b.rs.Close() }

// call runs one tool call and returns its text and the round trip's time.
func (b *borisSession) call(_ context.Context, tool string, args map[string]any) (string, time.Duration, error) {
	res, d, err := b.rs.CallTool(tool, args)
	if err != nil {
		return "", 0, err
	}
	text := benchkit.ResultText(res)
	if res.IsError {
		return "", 0, fmt.Errorf("%s returned an error: %s", tool, text)
	}
	return text, d, nil
}
