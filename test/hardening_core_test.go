//go:build linux

package test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callPromptly runs a tool and fails the test if it has not answered
// within a minute: a file tool blocked on a FIFO or a device never answers.
func (c *core) callPromptly(name string, args map[string]any) *mcp.CallToolResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if ctx.Err() != nil {
		c.t.Fatalf("call %s %v: no answer after a minute", name, args)
	}
	if err != nil {
		c.t.Fatalf("call %s %v: protocol error: %v", name, args, err)
	}
	return res
}

// ptyMasters counts the descriptors of process pid open on /dev/ptmx or a
// pty: each one a view of /dev/ptmx would leak if it opened and kept it.
func ptyMasters(t *testing.T, pid int) int {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && (target == "/dev/ptmx" || strings.HasPrefix(target, "/dev/pts/")) {
			n++
		}
	}
	return n
}

// TestSpecialFilesRefused drives every file tool of both schema modes at a
// FIFO, /dev/ptmx, /dev/zero and /dev/urandom (issue 10, item 3): each call
// answers at once with an INVALID_INPUT naming the file's type (grep and
// glob: a skip or a refusal), nothing is written, the FIFO stays a FIFO, and
// no pseudo-terminal is left open in the core.
func TestSpecialFilesRefused(t *testing.T) {
	dir := realTempDir(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	targets := []struct{ path, kind string }{
		{fifo, "a FIFO (named pipe)"},
		{"/dev/ptmx", "a character device"},
		{"/dev/zero", "a character device"},
		{"/dev/urandom", "a character device"},
	}
	split := startCore(t, "--workdir", dir)
	compat := startCore(t, "--workdir", dir, "--anthropic-compat")
	before := ptyMasters(t, split.cmd.Process.Pid) + ptyMasters(t, compat.cmd.Process.Pid)
	for _, tg := range targets {
		if _, err := os.Lstat(tg.path); err != nil {
			t.Logf("skipping %s: %v", tg.path, err)
			continue
		}
		calls := []struct {
			c    *core
			name string
			args map[string]any
		}{
			{split, "view", map[string]any{"path": tg.path}},
			{split, "view", map[string]any{"path": tg.path, "view_range": []int{1, 2}}},
			{split, "create_file", map[string]any{"path": tg.path, "content": "x"}},
			{split, "str_replace", map[string]any{"path": tg.path, "old_str": "a", "new_str": "b"}},
			{split, "glob", map[string]any{"pattern": "*", "path": tg.path}},
			{compat, "str_replace_editor", map[string]any{"command": "view", "path": tg.path}},
			{compat, "str_replace_editor", map[string]any{"command": "create", "path": tg.path, "file_text": "x"}},
			{compat, "str_replace_editor", map[string]any{"command": "str_replace", "path": tg.path, "old_str": "a", "new_str": "b"}},
			{compat, "str_replace_editor", map[string]any{"command": "insert", "path": tg.path, "insert_line": 0, "new_str": "x"}},
		}
		for _, call := range calls {
			res := call.c.callPromptly(call.name, call.args)
			got := text(res)
			if !res.IsError || !strings.HasPrefix(got, "[INVALID_INPUT] ") || !strings.Contains(got, tg.kind) {
				t.Errorf("%s %v: got isError=%v %q, want [INVALID_INPUT] naming %s", call.name, call.args, res.IsError, got, tg.kind)
			}
		}
		for _, c := range []*core{split, compat} {
			res := c.callPromptly("grep", map[string]any{"pattern": "x", "path": tg.path})
			if got := text(res); res.IsError || !strings.Contains(got, "1 special file") {
				t.Errorf("grep in %s: got isError=%v %q, want it skipped as a special file", tg.path, res.IsError, got)
			}
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: mode %v, %v", fi.Mode(), err)
	}
	// A directory holding a FIFO is searched around it.
	writeFile(t, filepath.Join(dir, "a.txt"), "needle\n")
	res := split.callPromptly("grep", map[string]any{"pattern": "needle"})
	if got := text(res); res.IsError || !strings.Contains(got, filepath.Join(dir, "a.txt")) || !strings.Contains(got, "1 special file") {
		t.Errorf("grep in a directory holding a FIFO: got %q, want a.txt found and the FIFO skipped", got)
	}
	if after := ptyMasters(t, split.cmd.Process.Pid) + ptyMasters(t, compat.cmd.Process.Pid); after != before {
		t.Errorf("pty descriptors in the cores: %d before, %d after viewing /dev/ptmx; want no change", before, after)
	}
}

// resultBytes is the size of a result's content as the core sent it.
func resultBytes(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestResultsBounded asks the built core for answers far over the gateway's
// 64 MiB message limit (issue 10, item 4): grep content mode with no
// head_limit over six 9.5 MB files, glob and a full view_range over as
// much, an image over the image limit. Each answer stays near 1 MiB of
// text and says how to page; the session keeps answering.
func TestResultsBounded(t *testing.T) {
	const limit = 1 << 20
	dir := realTempDir(t)
	line := strings.Repeat("needle and some text to make the line longer ", 2) + "\n"
	big := strings.Repeat(line, 9_500_000/len(line))
	for i := range 6 {
		writeFile(t, filepath.Join(dir, "big", "f"+strconv.Itoa(i)+".txt"), big)
	}
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 25<<20)...)
	if err := os.WriteFile(filepath.Join(dir, "huge.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	c := startCore(t, "--workdir", dir, "--max-file-size", "64MB")

	res := c.callPromptly("grep", map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 0})
	got := text(res)
	if res.IsError || resultBytes(t, res) > limit+64<<10 {
		t.Fatalf("grep content, head_limit 0: got isError=%v and %d bytes, want a page of about %d bytes", res.IsError, resultBytes(t, res), limit)
	}
	if !regexp.MustCompile(`\[Showing lines 1-\d+ of \d+: a result holds at most 1MB of text\. Pass offset: \d+ for more\.\]`).MatchString(got) {
		t.Errorf("grep content, head_limit 0: the result does not say how to page; it ends %q", got[max(0, len(got)-300):])
	}
	res = c.callPromptly("view", map[string]any{"path": "big/f0.txt", "view_range": []int{1, -1}})
	if got := text(res); res.IsError || resultBytes(t, res) > limit+64<<10 || !strings.Contains(got, "a result holds at most 1MB of text. Pass view_range, e.g. [") {
		t.Errorf("view of a 9.5 MB file with view_range [1, -1]: got isError=%v, %d bytes, ending %q; want at most about %d bytes and how to see more",
			res.IsError, resultBytes(t, res), got[max(0, len(got)-300):], limit)
	}
	c.fails("FILE_TOO_LARGE", "view", map[string]any{"path": "huge.png"})
	// The session is still usable.
	if got := c.ok("grep", map[string]any{"pattern": "needle", "output_mode": "count", "path": "big/f1.txt"}); !strings.Contains(got, "f1.txt:") {
		t.Errorf("a call after the huge answers: got %q", got)
	}
}

// TestScreenKeepsSessionOnBadBatches sends the built core the JSON-RPC
// batches the SDK would end the session over (an empty one, one holding a
// message that is not JSON-RPC, one nested past the SDK's limit, and a
// batch on a protocol version without batches): each is answered with an
// error and the session keeps answering.
func TestScreenKeepsSessionOnBadBatches(t *testing.T) {
	for _, version := range []string{"2025-03-26", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			cmd := exec.Command(borisBin, "--workdir", realTempDir(t))
			cmd.Env = cleanEnv()
			stdin, stdout := startPiped(t, cmd)
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			s := &rawSession{t: t, stdin: stdin, lines: rawLines(stdout)}
			s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			s.await(1)
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			bad := []string{"[]", `[{"x":1}]`, strings.Repeat("[", 1001) + strings.Repeat("]", 1001)}
			if version == "2025-06-18" {
				bad = append(bad, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
			}
			for i, line := range bad {
				s.send(line)
				id := 10 + i
				s.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`)
				if resp := s.await(id); resp["result"] == nil {
					t.Errorf("ping after %.40s: got %v, want a result", line, resp)
				}
			}
		})
	}
}

// TestGrepHugeNumbers: grep's context, context_before, context_after,
// head_limit and offset at or near the largest integer give sane pages (the
// whole file as context, every entry, or an offset past the end) instead
// of a panic, a dead session or a wrong slice from an overflowing sum.
func TestGrepHugeNumbers(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo needle\nthree\nfour needle\nfive\n")
	c := startCore(t, "--workdir", dir)
	const maxInt = int64(^uint64(0) >> 1)
	lines := []string{"$F-1-one\n", "$F:2:two needle\n", "$F-3-three\n", "$F:4:four needle\n", "$F-5-five\n"}
	whole := strings.Join(lines, "")
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // the result's text before its [Skipped: ...] footer; $F is the file's path
	}{
		{"context", map[string]any{"context": maxInt}, whole + "\n"},
		{"context_after", map[string]any{"context_after": maxInt}, strings.Join(lines[1:], "") + "\n"},
		{"context_before", map[string]any{"context_before": maxInt}, strings.Join(lines[:4], "") + "\n"},
		{"both near the limit", map[string]any{"context_before": maxInt - 1, "context_after": maxInt - 1}, whole + "\n"},
		{"head_limit", map[string]any{"context": maxInt, "head_limit": maxInt, "offset": 1}, strings.Join(lines[1:], "") + "\n[Showing lines 2-5 of 5.]\n"},
		{"offset", map[string]any{"context": maxInt, "head_limit": maxInt, "offset": maxInt}, "\n[Offset 9223372036854775807 is past the end: there are 5 lines.]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"pattern": "needle", "output_mode": "content"}
			for k, v := range tc.args {
				args[k] = v
			}
			res := c.callPromptly("grep", args)
			got, _, _ := strings.Cut(text(res), "[Skipped")
			want := strings.ReplaceAll(tc.want, "$F", filepath.Join(dir, "a.txt"))
			if res.IsError || got != want {
				t.Errorf("grep %v: got isError=%v %q, want %q", tc.args, res.IsError, text(res), want)
			}
		})
	}
	// The session is still usable.
	if got := c.ok("grep", map[string]any{"pattern": "needle", "output_mode": "count"}); !strings.Contains(got, "a.txt:2") {
		t.Errorf("a call after the huge numbers: got %q, want a.txt:2", got)
	}
}
