package checkpoints

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// write changes the file rel of d's directory as a tool would, recording
// a checkpoint of it.
func write(t *testing.T, d *tooltest.Deps, rel, content string) {
	t.Helper()
	abs := filepath.Join(d.Dir(), rel)
	ctx := context.Background()
	d.Recorder().BeforeChange(ctx)
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	d.Recorder().Record("create_file", "wrote "+rel, abs)
	d.Recorder().Await(ctx)
	if err := d.Recorder().Err(); err != nil {
		t.Fatalf("record %s: %v", rel, err)
	}
}

// TestTools: history lists the checkpoints of real changes, diff shows
// one, undo reverts one (and is itself recorded, so it can be undone),
// and what is refused is refused with its code, changing nothing.
func TestTools(t *testing.T) {
	d := tooltest.New(t, "**/.env").WithCheckpoints(t)
	cs := tooltest.Connect(t, Tools(d))
	call := func(tool string, args map[string]any) (string, bool) {
		res := tooltest.Call(t, cs, tool, args)
		return tooltest.Text(res), res.IsError
	}
	write(t, d, "a.txt", "first\n")
	write(t, d, "b.txt", "other\n")
	write(t, d, "a.txt", "second\n")

	hist, isErr := call("history", nil)
	ids := regexp.MustCompile(`cp_\d+`).FindAllString(hist, -1)
	if isErr || len(ids) < 3 || !strings.Contains(hist, "wrote a.txt") || !strings.Contains(hist, "wrote b.txt") {
		t.Fatalf("history: got isError=%v %q, want the three writes", isErr, hist)
	}
	if only, _ := call("history", map[string]any{"path": "b.txt"}); strings.Contains(only, "wrote a.txt") || !strings.Contains(only, "wrote b.txt") {
		t.Errorf("history of b.txt: got %q, want only its write", only)
	}
	if one, _ := call("history", map[string]any{"limit": 1}); len(regexp.MustCompile(`cp_\d+`).FindAllString(one, -1)) != 1 {
		t.Errorf("history limit 1: got %q, want one checkpoint", one)
	}
	if diff, isErr := call("diff", map[string]any{"checkpoint": ids[0]}); isErr || !strings.Contains(diff, "-first") || !strings.Contains(diff, "+second") {
		t.Errorf("diff of the last checkpoint: got isError=%v %q, want first replaced by second", isErr, diff)
	}

	if got, isErr := call("undo", nil); isErr {
		t.Fatalf("undo: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(d.Dir(), "a.txt")); string(got) != "first\n" {
		t.Errorf("a.txt after undo: %q, want first", got)
	}
	if got, isErr := call("undo", nil); isErr { // the undo is a checkpoint of its own
		t.Fatalf("undo of the undo: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(d.Dir(), "a.txt")); string(got) != "second\n" {
		t.Errorf("a.txt after undoing the undo: %q, want second", got)
	}

	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"diff", map[string]any{"checkpoint": "cp_999"}, "["},
		{"undo", map[string]any{"checkpoint": "cp_999"}, "["},
		{"diff", map[string]any{"checkpoint": "not-an-id"}, "["},
		{"history", map[string]any{"path": "/etc"}, "[ACCESS_DENIED]"},
		{"undo", map[string]any{"path": "../../outside"}, "[ACCESS_DENIED]"},
		{"diff", map[string]any{"path": ".env"}, "[ACCESS_DENIED]"},
		{"history", map[string]any{"limit": -1}, "[INVALID_INPUT]"},
	} {
		if got, isErr := call(tt.tool, tt.args); !isErr || !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: got isError=%v %q, want an error with %q", tt.tool, tt.args, isErr, got, tt.want)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(d.Dir(), "a.txt")); string(got) != "second\n" {
		t.Errorf("a.txt after the refusals: %q, want second", got)
	}
}

// TestToolsWithoutCheckpoints: with checkpoints off every tool says so
// with its code rather than answering from nothing.
func TestToolsWithoutCheckpoints(t *testing.T) {
	cs := tooltest.Connect(t, Tools(tooltest.New(t)))
	for _, tool := range []string{"history", "diff", "undo"} {
		res := tooltest.Call(t, cs, tool, nil)
		if got := tooltest.Text(res); !res.IsError || !strings.HasPrefix(got, "[") {
			t.Errorf("%s without checkpoints: got isError=%v %q, want an error with its code", tool, res.IsError, got)
		}
	}
}

// TestUndoCreatedAndConflicting: undoing the creation of a file removes
// it and the directories made only for it; an undo over a file changed
// outside Boris since is refused with [CONFLICT], the file untouched,
// unless forced.
func TestUndoCreatedAndConflicting(t *testing.T) {
	d := tooltest.New(t).WithCheckpoints(t)
	cs := tooltest.Connect(t, Tools(d))
	call := func(tool string, args map[string]any) (string, bool) {
		res := tooltest.Call(t, cs, tool, args)
		return tooltest.Text(res), res.IsError
	}
	if err := os.MkdirAll(filepath.Join(d.Dir(), "made", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, d, "kept.txt", "kept\n")
	write(t, d, "made/deep/new.txt", "new\n")
	if got, isErr := call("undo", map[string]any{"path": "made"}); isErr {
		t.Fatalf("undo of made: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(d.Dir(), "made", "deep", "new.txt")); !os.IsNotExist(err) {
		t.Errorf("made/deep/new.txt after undoing its creation: %v, want it gone", err)
	}
	if _, err := os.Lstat(filepath.Join(d.Dir(), "kept.txt")); err != nil {
		t.Errorf("kept.txt, outside the undone path: %v", err)
	}

	write(t, d, "c.txt", "mine\n")
	hist, _ := call("history", map[string]any{"limit": 1})
	id := regexp.MustCompile(`cp_\d+`).FindString(hist)
	if err := os.WriteFile(filepath.Join(d.Dir(), "c.txt"), []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, isErr := call("undo", map[string]any{"checkpoint": id}); !isErr || !strings.Contains(got, "[CONFLICT]") {
		t.Fatalf("undo over an outside change: got isError=%v %q, want [CONFLICT]", isErr, got)
	}
	if got, _ := os.ReadFile(filepath.Join(d.Dir(), "c.txt")); string(got) != "someone else's\n" {
		t.Errorf("c.txt after the refused undo: %q, want the outside change kept", got)
	}
	if got, isErr := call("undo", map[string]any{"checkpoint": id, "force": true}); isErr {
		t.Fatalf("forced undo: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(d.Dir(), "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt after the forced undo of its creation: %v, want it gone", err)
	}
}

// TestIsTool: the checkpoint tools, and nothing else, are named.
func TestIsTool(t *testing.T) {
	for name, want := range map[string]bool{"history": true, "diff": true, "undo": true, "undo_edit": false, "bash": false, "": false} {
		if got := IsTool(name); got != want {
			t.Errorf("IsTool(%q) = %v, want %v", name, got, want)
		}
	}
}
