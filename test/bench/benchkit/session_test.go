package benchkit

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readArgs are the arguments of the test server's read tool.
type readArgs struct {
	Path string `json:"path"`
}

// connectReader starts an in-memory server whose read tool answers with
// text and returns a client session on it, closed when the test ends.
func connectReader(t *testing.T, text string, isErr bool) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "reader", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "read"}, func(context.Context, *mcp.CallToolRequest, readArgs) (*mcp.CallToolResult, any, error) {
		return textResult(text, isErr), nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := NewClient("benchkit-test").Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestTimeSession checks that a server serving the fixture yields as many
// call and ping samples as timed, and that a result lacking the file stops
// the phase with an error naming the tool and the call.
func TestTimeSession(t *testing.T) {
	fx := Fixture{Path: "/f", Lines: []string{"alpha", "beta"}}
	read := ReadCall{Tool: "read", Args: map[string]any{"path": fx.Path}, Fixture: fx}
	ctx := context.Background()

	call, ping, err := TimeSession(ctx, connectReader(t, "alpha\nbeta\n", false), read, 2, 5)
	if err != nil {
		t.Fatalf("TimeSession on a good server: %v", err)
	}
	if call.N != 5 || ping.N != 5 {
		t.Errorf("samples: got %d calls, %d pings; want 5 of each", call.N, ping.N)
	}

	_, _, err = TimeSession(ctx, connectReader(t, "alpha\n", false), read, 2, 5)
	if err == nil || !strings.HasPrefix(err.Error(), "read: call 0: result lacks line 2") {
		t.Errorf("TimeSession on a server missing a line: got %v, want \"read: call 0: result lacks line 2 ...\"", err)
	}
}

// TestTimeOps checks that warm-up runs are not timed and the first error
// stops the run with its index.
func TestTimeOps(t *testing.T) {
	n := 0
	ds, err := timeOps(3, 4, func() error { n++; return nil })
	if err != nil || len(ds) != 4 || n != 7 {
		t.Errorf("timeOps(3, 4): got %d samples of %d runs, err %v; want 4 of 7, nil", len(ds), n, err)
	}
	n = 0
	_, err = timeOps(1, 4, func() error {
		if n++; n == 3 {
			return context.Canceled
		}
		return nil
	})
	if err == nil || err.Error() != "call 2: context canceled" {
		t.Errorf("timeOps failing on the third run: got %v, want \"call 2: context canceled\"", err)
	}
}
