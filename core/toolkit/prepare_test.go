package toolkit

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tunedParams counts how often its schema is made.
type tunedParams struct {
	Word string `json:"word"`
}

// tunings counts tunedParams' schemas made by this package's tests.
var tunings atomic.Int64

func (tunedParams) TuneSchema(*jsonschema.Schema) { tunings.Add(1) }

// TestPrepareMakesTheFirstCallsSchema: Prepare makes the schema a tool's
// arguments are validated against, so its first call makes none (a core
// prepares its tools in the background once the client has initialized);
// the call still validates against it.
func TestPrepareMakesTheFirstCallsSchema(t *testing.T) {
	ctx := context.Background()
	tool := New(&mcp.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in tunedParams) (*mcp.CallToolResult, error) {
		return TextResult(in.Word), nil
	})
	before := tunings.Load()
	tool.Prepare()
	if got := tunings.Load() - before; got != 1 {
		t.Fatalf("Prepare made %d schemas, want 1", got)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	tool.Register(s, func(ctx context.Context, _ string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
		return run(ctx)
	})
	registered := tunings.Load() // registering advertises a schema of its own
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		args    map[string]any
		isError bool
	}{{map[string]any{"word": "hi"}, false}, {map[string]any{"word": 3}, true}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != c.isError {
			t.Errorf("%v: isError %v, want %v", c.args, res.IsError, c.isError)
		}
	}
	if got := tunings.Load() - registered; got != 0 {
		t.Errorf("the calls made %d schemas, want none: Prepare made theirs", got)
	}
	(Tool{Name: "raw"}).Prepare() // a raw tool has nothing to prepare
}
