package core

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFirstListBeforeRegistration: a tools/list answered before the tools
// are registered (listEarly) lists what the SDK lists once they are, for
// each toolset and schema choice; nothing registers them but a request
// that needs them (a call), and a cursor is never answered with the
// first page.
func TestFirstListBeforeRegistration(t *testing.T) {
	ctx := context.Background()
	session := func(t *testing.T, args ...string) (*boris, *mcp.ClientSession) {
		bo := newBenchBoris(t, append([]string{"--workdir", t.TempDir(), "--sandbox", "off"}, args...)...)
		bo.settleOnce.Do(func() {}) // no background preparation: nothing registers the tools but a request
		return bo, benchSession(t, bo, "")
	}
	for _, args := range [][]string{nil, {"--toolset", "all"}, {"--toolset", "filesystem"}, {"--read-only"}, {"--checkpoints", "off"}, {"--anthropic-compat=20250728"}} {
		t.Run(strings.Join(append([]string{"flags"}, args...), " "), func(t *testing.T) {
			bo, cs := session(t, args...)
			early, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if bo.registered.Load() {
				t.Fatal("the first tools/list registered the tools")
			}
			bo.registerTools()
			sdk, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(early)
			want, _ := json.Marshal(sdk)
			if len(sdk.Tools) == 0 || string(got) != string(want) {
				t.Errorf("tools/list before the registration:\n%s\nthe SDK's after it:\n%s", got, want)
			}
		})
	}
	t.Run("a cursor", func(t *testing.T) {
		_, cs := session(t)
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "not-a-cursor"})
		if err == nil {
			t.Errorf("tools/list with a cursor no page gave: %d tools; want an invalid-params error", len(res.Tools))
		}
	})
	t.Run("a call", func(t *testing.T) {
		bo, cs := session(t)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "view", Arguments: map[string]any{"path": "."}})
		if err != nil || res.IsError || !bo.registered.Load() {
			t.Errorf("a first tools/call: err %v, result %+v, registered %v; want it answered by the registered tool", err, res, bo.registered.Load())
		}
	})
}
