package core

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSealedCursors(t *testing.T) {
	b := &boris{cursors: newCursorSeal()}
	var seen string
	next := func(_ context.Context, method string, req mcp.Request) (mcp.Result, error) {
		seen = req.GetParams().(*mcp.ListToolsParams).Cursor
		return &mcp.ListToolsResult{NextCursor: "sdk-cursor-2"}, nil
	}
	h := b.sealCursors(next)
	call := func(method, cursor string) (string, error) {
		res, err := h(context.Background(), method, &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{Cursor: cursor}})
		if err != nil {
			return "", err
		}
		return res.(*mcp.ListToolsResult).NextCursor, nil
	}
	first, err := call("tools/list", "")
	if err != nil || first == "" || strings.Contains(first, "sdk-cursor") {
		t.Fatalf("first page: next cursor %q, %v; want a sealed cursor", first, err)
	}
	if _, err := call("tools/list", first); err != nil || seen != "sdk-cursor-2" {
		t.Fatalf("next page: the SDK saw %q (%v), want the cursor it made", seen, err)
	}
	refused := func(what, method, cursor, want string) {
		t.Helper()
		_, err := call(method, cursor)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, want) {
			t.Errorf("%s: %v, want invalid params saying %q", what, err, want)
		}
	}
	refused("made up", "tools/list", "sdk-cursor-2", "not a cursor this server made")
	refused("tampered", "tools/list", first[:len(first)-2]+"AA", "not a cursor this server made")
	refused("foreign", "prompts/list", first, "another list")
	refused("another process's", "tools/list", (&boris{cursors: newCursorSeal()}).cursors.seal("tools/list", "x"), "not a cursor this server made")
	b.cursors.gen.Add(1)
	refused("stale", "tools/list", first, "stale")

	// A list request without params, and a failed call, pass through.
	var nilParams *mcp.ListPromptsParams
	fail := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return (*mcp.ListPromptsResult)(nil), errors.New("x")
	}
	if _, err := b.sealCursors(fail)(context.Background(), "prompts/list", &mcp.ListPromptsRequest{Params: nilParams}); err == nil || err.Error() != "x" {
		t.Errorf("nil params: %v, want the handler's own error", err)
	}
}
