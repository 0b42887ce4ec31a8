package extensions

//lint:file-ignore SA1019 logging is deprecated by the 2026-07-28 revision but is how extension tools' logs reach 2025 clients

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// reporter writes progress and log lines, good and malformed, as the
// SDK's helpers append them.
var reporter = tool("reporter", `{"name":"reporter","description":"reports progress and logs"}`, `for i in 1 2 3; do echo "{\"progress\":$i,\"total\":3,\"message\":\"step $i\"}" >> "$MCP_PROGRESS_STREAM"; done
echo 'not a progress line' >> "$MCP_PROGRESS_STREAM"
{
echo '{"level":"warn","logger":"demo","data":"at 1"}'
echo 'garbage'
echo '{"level":"DEBUG","logger":"demo","data":{"k":1}}'
echo '{"level":"LOUD","logger":"demo","data":"x"}'
echo '{"level":"error","logger":"demo","data":"bad"}'
} >> "$MCP_LOG_STREAM"
echo done
`)

// TestProgressAndLogs: a tool's progress reaches a client that asked
// for it (the latest report of each poll), and its logs reach the client
// at the level it set, mapped onto MCP's levels, tagged with the
// request's related-request _meta; malformed lines are dropped.
func TestProgressAndLogs(t *testing.T) {
	e := loadExt(t, reporter, nil)
	progress, logs := make(chan string, 16), make(chan string, 16)
	cs := e.connect(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			logs <- fmt.Sprintf("%s %s %v %v", req.Params.Level, req.Params.Logger, req.Params.Data, req.Params.Meta[corecheck.RelatedRequestMeta])
		},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "reporter", Arguments: map[string]any{}, Meta: mcp.Meta{corecheck.RelatedRequestMeta: "r-7"}}
	params.SetProgressToken("p-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || tooltest.Text(res) != "done\n" {
		t.Fatalf("reporter: %v, %v", err, res)
	}
	for _, want := range []string{"warning demo at 1 r-7", "info demo x r-7", "error demo bad r-7"} { // debug is below info
		if got := receive(t, logs, "a log message"); got != want {
			t.Errorf("log: got %q, want %q", got, want)
		}
	}
	var last string
	for last != "3/3 step 3" {
		last = receive(t, progress, "the last progress, 3/3 step 3")
	}
}

// receive is the next value of c, failing the test after a minute without
// one.
func receive(t *testing.T, c chan string, what string) string {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no %s came", what)
		return ""
	}
}

// TestLogLevel: a tool's level names map onto MCP's, unknown ones to info.
func TestLogLevel(t *testing.T) {
	for in, want := range map[string]string{"debug": "debug", "WARN": "warning", "Critical": "critical", "emergency": "emergency", "verbose": "info", "": "info"} {
		if got := logLevel(in); got != want {
			t.Errorf("logLevel(%q) = %q, want %q", in, got, want)
		}
	}
}
