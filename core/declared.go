package core

//lint:file-ignore SA1019 logging is deprecated by the 2026-07-28 revision, but 2025 clients still set its level, and it is served only where declared

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// capabilityOf names the server capability a client request needs, or ""
// for one every server serves (initialize, ping, tools, ...).
func capabilityOf(method string) string {
	switch method {
	case "prompts/list", "prompts/get":
		return "prompts"
	case "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe":
		return "resources"
	case "completion/complete":
		return "completions"
	case "logging/setLevel":
		return "logging"
	}
	return ""
}

// declares reports whether caps declares the capability kind.
func declares(caps *mcp.ServerCapabilities, kind string) bool {
	switch kind {
	case "prompts":
		return caps.Prompts != nil
	case "resources":
		return caps.Resources != nil
	case "completions":
		return caps.Completions != nil
	case "logging":
		return caps.Logging != nil
	}
	return true
}

// declaredOnly answers a request for a capability the server does not
// declare (in initialize, or in server/discover at 2026-07-28) with
// "method not found", in every revision: the SDK would otherwise answer
// prompts/list, resources/list and the like with empty lists, serving what
// it does not declare. What is declared is what extensions provided when
// the server started (what initialize announced) or provide now (what a
// 2026-07-28 server/discover announces; see capabilities): without
// extensions, tools alone. A kind of content whose last item was removed
// stays served: a client told of it may still list it, and finds it empty.
func (b *boris) declaredOnly(next mcp.MethodHandler) mcp.MethodHandler {
	start := b.capabilities()
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if kind := capabilityOf(method); kind != "" && !declares(start, kind) && !declares(b.capabilities(), kind) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%s: this server does not declare the %s capability (only extensions (--extensions) provide it)", method, kind)}
		}
		return next(ctx, method, req)
	}
}
