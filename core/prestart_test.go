package core

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// closed reports whether ch is closed.
func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestPrestartWaitsForTheFirstList: the spawner's and the checkpoints'
// start waits for the client's first tools/list to be answered and its
// answer written (written closes at the first response written after
// answered, not before), or for a request that may need them (anything
// but tools/list and the handshake), whichever comes first.
func TestPrestartWaitsForTheFirstList(t *testing.T) {
	newBoris := func() *boris {
		b := &boris{answered: make(chan struct{}), written: make(chan struct{}), needed: make(chan struct{}), registerTools: func() {}}
		b.settleOnce.Do(func() {}) // no background preparation in this test
		return b
	}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.ListToolsResult{}, nil }

	t.Run("tools/list", func(t *testing.T) {
		b := newBoris()
		b.noteResponse() // initialize's answer
		if closed(b.written) {
			t.Fatal("written closed by a response before the first tools/list was answered")
		}
		h := b.awaitTools(next)
		for _, method := range []string{"initialize", "notifications/initialized", "ping", "tools/list"} {
			if _, err := h(context.Background(), method, &mcp.ListToolsRequest{}); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
			if closed(b.needed) {
				t.Fatalf("needed closed by %s", method)
			}
		}
		if !closed(b.answered) || closed(b.written) {
			t.Fatalf("after tools/list's handler: answered %v, written %v; want answered, not yet written", closed(b.answered), closed(b.written))
		}
		b.noteResponse()
		b.noteResponse() // later responses: closed once
		if !closed(b.written) {
			t.Error("written still open once tools/list's answer was written")
		}
	})
	t.Run("a call first", func(t *testing.T) {
		b := newBoris()
		h := b.awaitTools(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			if !closed(b.needed) {
				t.Error("tools/call reached its handler before needed closed: the spawner's start would wait for the call")
			}
			return &mcp.CallToolResult{}, nil
		})
		if _, err := h(context.Background(), "tools/call", &mcp.CallToolRequest{}); err != nil {
			t.Fatal(err)
		}
		if !closed(b.needed) {
			t.Error("needed still open after a tools/call")
		}
	})
}
