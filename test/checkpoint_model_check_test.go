package test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCheckpointModel's checks of the core against the model, its failure
// report and its random contents.

// checkTree fails unless the tree is what the model expects.
func (r *modelRun) checkTree() {
	got := r.snap()
	if diff := cmp.Diff(r.m.disk.render(), got); diff != "" {
		r.fail("the tree differs from the model (-model +tree):\n%s", diff)
	}
	r.lastSnap = got
}

// checkHistory fails unless history's newest checkpoints are the model's:
// ids, tools, changed files. It waits for the recordings under way.
func (r *modelRun) checkHistory() {
	n := min(20, len(r.m.cps))
	var want []string
	for _, cp := range slices.Backward(r.m.cps[len(r.m.cps)-n:]) {
		want = append(want, cp.String())
	}
	if diff := cmp.Diff(want, parseHistory(r.call("history", map[string]any{"limit": n}))); diff != "" {
		r.fail("history differs from the model (-model +history; a line is a checkpoint: id, tool, files changed):\n%s\n"+
			"A checkpoint holds exactly its call's change: a file in an agent's checkpoint that the model has in a later outside one is a change made outside Boris recorded as the agent's.", diff)
	}
	r.checkRecorded()
}

// checkRecorded fails unless every checkpoint recorded since the last
// check holds, byte for byte and mode for mode, the tree the model
// expects: its call's change and nothing else. It reads the shadow
// repository.
func (r *modelRun) checkRecorded() {
	n := len(r.m.cps) - r.verified
	if n == 0 {
		return
	}
	commits := map[int]string{}
	for _, rec := range strings.Split(shadowGit(r.t, r.state, "log", "-n", fmt.Sprint(n), "--format=%H %B%x1e"), "\x1e") {
		if m := shadowCommitRe.FindStringSubmatch(rec); m != nil {
			id, _ := strconv.Atoi(m[2])
			commits[id] = m[1]
		}
	}
	for _, cp := range r.m.cps[r.verified:] {
		got := map[string]string{}
		for _, line := range strings.Split(shadowGit(r.t, r.state, "ls-tree", "-r", "-z", commits[cp.id]), "\x00") {
			if meta, p, ok := strings.Cut(line, "\t"); ok {
				got[p] = meta
			}
		}
		want := map[string]string{}
		for p, e := range cp.tree {
			want[p] = e.gitEntry()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			r.fail("cp_%d (%s) does not hold what the model expects, its call's change and nothing else (-model +recorded, mode and blob id):\n%s\nrecorded contents: %s",
				cp.id, cp.tool, diff, r.blobs(want, got))
		}
	}
	r.verified = len(r.m.cps)
}

var shadowCommitRe = regexp.MustCompile(`(?s)^\s*([0-9a-f]{40}) .*\nBoris-Checkpoint: (\d+)\n`)

// blobs shows the recorded contents of the paths where got differs from want.
func (r *modelRun) blobs(want, got map[string]string) string {
	var out []string
	for _, p := range modelPaths {
		if got[p] != want[p] && got[p] != "" {
			f := strings.Fields(got[p])
			out = append(out, fmt.Sprintf("%s: %q", p, shadowGit(r.t, r.state, "cat-file", "blob", f[2])))
		}
	}
	return strings.Join(out, ", ")
}

// snap is the tree as snapshot shows it, directories left out: git keeps
// none, so neither does the model.
func (r *modelRun) snap() map[string]string {
	m := snapshot(r.t, r.dir)
	maps.DeleteFunc(m, func(_, v string) bool { return v == "dir" })
	return m
}

// call runs a tool that must succeed and returns its text.
func (r *modelRun) call(name string, args map[string]any) string {
	res := r.callResult(name, args)
	if res.IsError {
		r.fail("%s %v: got error %q, want success", name, args, text(res))
	}
	return text(res)
}

func (r *modelRun) callResult(name string, args map[string]any) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := r.c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		r.fail("%s %v: protocol error: %v", name, args, err)
	}
	return res
}

// fail stops the test with what it takes to understand and replay the
// failure: the seed, the steps so far, the history, the paths that differ
// from the model and the core's log.
func (r *modelRun) fail(format string, args ...any) {
	r.t.Helper()
	steps := r.log
	if len(steps) > 80 {
		steps = append([]string{fmt.Sprintf("     (%d steps before)", len(steps)-80)}, steps[len(steps)-80:]...)
	}
	hist, logged := "(no session)", "(no session)"
	if r.c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if res, err := r.c.session.CallTool(ctx, &mcp.CallToolParams{Name: "history", Arguments: map[string]any{"limit": 40}}); err == nil {
			hist = text(res)
		}
		logged = r.c.stderr.String()
	}
	paths := "none"
	if diff := cmp.Diff(r.m.disk.render(), r.snap()); diff != "" {
		paths = "(-model +tree)\n" + diff
	}
	r.t.Fatalf("step %d of %d, seed %d (replay: BORIS_MODEL_SEED=%d BORIS_MODEL_STEPS=%d go test ./test -run TestCheckpointModel -count=1):\n%s\n\n"+
		"steps (-> what the model expects):\n%s\n\nhistory (newest 40):\n%s\n\npaths that differ from the model: %s\n\ncore's log:\n%s",
		r.step, r.steps, r.seed, r.seed, r.steps, fmt.Sprintf(format, args...), strings.Join(steps, "\n"), hist, paths, logged)
}

func (r *modelRun) logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf("%4d ", r.step)+fmt.Sprintf(format, args...))
}

// check fails the test on an error of the test's own changes.
func (r *modelRun) check(err error) {
	r.t.Helper()
	if err != nil {
		r.fail("changing the tree outside Boris: %v", err)
	}
}

func (r *modelRun) abs(p string) string { return filepath.Join(r.dir, filepath.FromSlash(p)) }

// writeEntry writes a new regular file e at p, outside Boris.
func (r *modelRun) writeEntry(p string, e mEntry) {
	r.check(os.MkdirAll(filepath.Dir(r.abs(p)), 0o755))
	r.check(os.WriteFile(r.abs(p), []byte(e.data), e.mode))
	r.check(os.Chmod(r.abs(p), e.mode))
}

// token is a word that occurs nowhere else, for str_replace to replace.
func (r *modelRun) token() string {
	r.tokens++
	return fmt.Sprintf("w%06d", r.tokens)
}

// content is random file contents: lines of tokens, LF or CRLF, at times
// a BOM, no final newline, or nothing at all; with binary, at times bytes
// that are not text.
func (r *modelRun) content(binary bool) string {
	if r.rng.IntN(12) == 0 {
		return ""
	}
	eol := "\n"
	if r.rng.IntN(4) == 0 {
		eol = "\r\n"
	}
	var sb strings.Builder
	if r.rng.IntN(8) == 0 {
		sb.WriteString("\ufeff")
	}
	for i := range 1 + r.rng.IntN(3) {
		if i > 0 {
			sb.WriteString(eol)
		}
		sb.WriteString(r.token())
	}
	if r.rng.IntN(4) > 0 {
		sb.WriteString(eol)
	}
	if binary && r.rng.IntN(4) == 0 {
		sb.WriteString("\x00\xfe\xff tail")
	}
	return sb.String()
}

func (r *modelRun) pickMode() fs.FileMode {
	if r.rng.IntN(3) == 0 {
		return 0o755
	}
	return 0o644
}

func pick[T any](r *modelRun, xs []T) T { return xs[r.rng.IntN(len(xs))] }
