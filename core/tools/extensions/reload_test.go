package extensions

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
)

// TestReload: when the extension directories change, a reload replaces
// the tools and the prompts (gone ones removed, new ones served) and
// says the lists changed; an unchanged directory reloads nothing; one
// that can no longer be read keeps what was loaded.
func TestReload(t *testing.T) {
	e := loadExt(t, merge(tool("one", `{"name":"one","description":"first"}`, "echo one\n"), content), nil)
	cs := e.connect(t, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	ctx := context.Background()
	list := func() (tools, prompts []string) {
		t.Helper()
		tl, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return names(tl.Tools, func(x *mcp.Tool) string { return x.Name }), names(pl.Prompts, func(x *mcp.Prompt) string { return x.Name })
	}
	fp := extension.Fingerprint(e.b.opt.Dirs)
	if got := e.b.reload(e.s, fp); got != fp || e.d.ListsChangedCount() != 0 {
		t.Errorf("reload of an unchanged directory: fingerprint %q (was %q), lists changed %d times; want nothing done", got, fp, e.d.ListsChangedCount())
	}

	if err := os.RemoveAll(filepath.Join(e.root, "tools", "one")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"brief.meta.json", "brief.txt"} {
		if err := os.Remove(filepath.Join(e.root, "prompts", f)); err != nil {
			t.Fatal(err)
		}
	}
	put(t, e.root, tool("two", `{"name":"two","description":"second"}`, "echo two\n"))
	fp = e.b.reload(e.s, fp)
	tools, prompts := list()
	if diff := cmp.Diff([]string{"two"}, tools); diff != "" {
		t.Errorf("tools after the reload (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"greet"}, prompts); diff != "" {
		t.Errorf("prompts after the reload (-want +got):\n%s", diff)
	}
	if e.d.ListsChangedCount() == 0 {
		t.Error("the reload did not say the lists changed")
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "two", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Errorf("call the new tool: %v, %+v", err, res)
	}

	moved := e.root + ".moved"
	if err := os.Rename(e.root, moved); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Rename(moved, e.root) })
	e.b.reload(e.s, fp)
	if tools, _ := list(); !cmp.Equal([]string{"two"}, tools) {
		t.Errorf("tools after a failed reload: %v, want two kept", tools)
	}

	done := make(chan struct{})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	go func() { e.b.Watch(cancelled, e.s); close(done) }()
	<-done // Watch returns once its context ends
}

// TestWatchSeesAChangeMadeBeforeItStarts: Watch compares with the
// directories as they were loaded, not as it finds them when its goroutine
// first runs: a tool added between the two is still loaded and announced.
func TestWatchSeesAChangeMadeBeforeItStarts(t *testing.T) {
	e := loadExt(t, tool("one", `{"name":"one","description":"first"}`, "echo one\n"), nil)
	put(t, e.root, tool("two", `{"name":"two","description":"second"}`, "echo two\n"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.b.Watch(ctx, e.s) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(3 * extReloadEvery)
	for e.d.ListsChangedCount() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no reload within %s of a tool added before Watch started", 3*extReloadEvery)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	var got []string
	for _, tl := range e.b.tools {
		got = append(got, tl.Name)
	}
	if !slices.Contains(got, "two") {
		t.Errorf("tools after the reload: %v, want two among them", got)
	}
}
