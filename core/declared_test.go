package core

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDeclaredOnly: without extensions a server declares tools alone, so
// the requests of the capabilities it does not declare get "method not
// found" instead of the SDK's empty lists; the rest reach the SDK.
func TestDeclaredOnly(t *testing.T) {
	b := &boris{} // no extensions
	reached := ""
	next := func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		reached = method
		return &mcp.ListToolsResult{}, nil
	}
	h := b.declaredOnly(next)
	tests := []struct {
		method  string
		refused bool
	}{
		{"prompts/list", true}, {"prompts/get", true},
		{"resources/list", true}, {"resources/templates/list", true}, {"resources/read", true},
		{"resources/subscribe", true}, {"resources/unsubscribe", true},
		{"completion/complete", true}, {"logging/setLevel", true},
		{"tools/list", false}, {"tools/call", false}, {"initialize", false}, {"ping", false}, {"server/discover", false},
	}
	for _, tt := range tests {
		reached = ""
		_, err := h(context.Background(), tt.method, &mcp.ListToolsRequest{})
		var je *jsonrpc.Error
		switch {
		case tt.refused && (!errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound):
			t.Errorf("%s: got %v, want method not found (-32601)", tt.method, err)
		case tt.refused && reached != "":
			t.Errorf("%s: reached the SDK, want it refused before", tt.method)
		case !tt.refused && (err != nil || reached != tt.method):
			t.Errorf("%s: got %v (reached %q), want it passed to the SDK", tt.method, err, reached)
		}
	}
}
