package core

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/procs"
)

// TestOverlappingCallsWiden: in a boris narrowed to one P, one tool call
// under way leaves it on one P, a second one at the same time gives it
// every P, and it narrows again once both are answered.
func TestOverlappingCallsWiden(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		t.Skip("needs GOMAXPROCS of at least 2; this machine runs Go on 1 CPU")
	}
	bo := newBenchBoris(t, "--workdir", t.TempDir())
	s := mcp.NewServer(&mcp.Implementation{Name: "boris-test"}, nil)
	entered, gate := make(chan struct{}), make(chan struct{})
	toolkit.New(&mcp.Tool{Name: "wait"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, error) {
		entered <- struct{}{}
		<-gate
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}).Register(s, bo.around)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	procs.Manage()
	procs.Narrow()
	t.Cleanup(procs.Restore)
	errs := make(chan error, 2)
	call := func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		errs <- err
	}
	go call()
	<-entered
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("one call under way: GOMAXPROCS %d, want 1", got)
	}
	go call()
	<-entered
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Errorf("two calls under way: GOMAXPROCS %d, want %d", got, n)
	}
	close(gate)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Each handler counts itself out before its answer is sent.
	for deadline := time.Now().Add(10 * time.Second); runtime.GOMAXPROCS(0) != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("both calls answered: GOMAXPROCS %d after 10 s, want 1", runtime.GOMAXPROCS(0))
		}
	}
}
