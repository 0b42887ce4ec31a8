package extensions

//lint:file-ignore SA1019 sampling and roots are deprecated by the 2026-07-28 revision but are what extension tools may ask a client for

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// asker is a tool that writes its argument line to its input file, waits
// for the answer to key (tries times 50 ms, 100 by default) and prints
// it: the client channel as the SDK's helpers use it, by hand.
var asker = tool("asker", `{"name":"asker","description":"asks its client"}`, `key=${MCP_SDK_ARG_key#s}
tries=${MCP_SDK_ARG_tries#j}
printf '%s\n' "${MCP_SDK_ARG_line#s}" >> "$MCP_INPUT_DIR/input"
printf '{"wait":"%s"}\n' "$key" >> "$MCP_INPUT_DIR/input"
for i in $(seq "${tries:-100}"); do [ -e "$MCP_INPUT_DIR/answer.$key" ] && break; sleep 0.05; done
echo "round=$MCP_INPUT_ROUND answer=$(cat "$MCP_INPUT_DIR/answer.$key" 2>/dev/null || echo none)"
`)

// askClient is a client that answers elicitations with a name, sampling
// with a text and roots/list with one root.
func askingClient(sampling bool) *mcp.ClientOptions {
	o := &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "asked": req.Params.Message}}, nil
		},
	}
	if sampling {
		o.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "forty-two"}}, nil
		}
	}
	return o
}

const (
	elicitLine = `{"ask":"q1","method":"elicitation/create","params":{"message":"who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	sampleLine = `{"ask":"s1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"6x7?"}}],"maxTokens":10}}`
	rootsLine  = `{"ask":"r1","method":"roots/list"}`
)

// TestClientChannel: a tool asks its client through the input file; on
// a 2025 session the question goes to the client at once and its answer
// is written for the tool; what the client cannot be asked, or did not
// declare, is answered with an error; a key that cannot name a file is
// not answered at all.
func TestClientChannel(t *testing.T) {
	e := loadExt(t, asker, nil)
	r := tooltest.Runner{Client: e.connect(t, askingClient(true), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}), Dir: e.root}
	r.Run(t, []tooltest.Step{
		{Tool: "asker", Args: map[string]any{"key": "q1", "line": elicitLine}, Want: `round=1 answer={"action":"accept","content":{"asked":"who?","name":"Ada"}}`},
		{Tool: "asker", Args: map[string]any{"key": "s1", "line": sampleLine}, Want: `"text":"forty-two"`},
		{Tool: "asker", Args: map[string]any{"key": "r1", "line": rootsLine}, Want: `answer={"roots":[]}`},
		{Tool: "asker", Args: map[string]any{"key": "x1", "line": `{"ask":"x1","method":"tools/call","params":{}}`},
			Want: `answer={"error":{"code":-32601,"message":"\"tools/call\" cannot be asked of a client: ask elicitation/create, sampling/createMessage or roots/list"}}`},
		{Tool: "asker", Args: map[string]any{"key": "m1", "line": `{"ask":"m1","method":"elicitation/create","params":{"message":7}}`},
			Want: `answer={"error":{"code":-32602,"message":"malformed elicitation/create params: `},
		{Tool: "asker", Args: map[string]any{"key": "../x", "tries": 4, "line": `{"ask":"../x","method":"roots/list"}`}, Want: "answer=none"},
		{Tool: "asker", Args: map[string]any{"key": "n1", "tries": 4, "line": `not json`}, Want: "answer=none"},
	})
	r = tooltest.Runner{Client: e.connect(t, askingClient(false), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}), Dir: e.root}
	r.Run(t, []tooltest.Step{
		{Tool: "asker", Args: map[string]any{"key": "s1", "line": sampleLine},
			Want: `answer={"error":{"code":-32021,"data":{"requiredCapabilities":{"sampling":{}}},"message":"the client did not declare the sampling capability"}}`},
	})
	failing := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("the user closed the dialog")
	}}
	r = tooltest.Runner{Client: e.connect(t, failing, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}), Dir: e.root}
	r.Run(t, []tooltest.Step{
		{Tool: "asker", Args: map[string]any{"key": "q1", "line": elicitLine}, Want: `answer={"error":{"code":`},
		{Tool: "asker", Args: map[string]any{"key": "q1", "line": elicitLine}, Want: `the user closed the dialog`},
	})
}

// TestClientChannelRounds: on a 2026-07-28 request a tool waiting for an
// answer ends the round with the question and a signed requestState;
// the client's retry runs it again with the answer already there. A
// requestState the server did not issue is refused.
func TestClientChannelRounds(t *testing.T) {
	e := loadExt(t, asker, nil)
	cs := e.connect(t, askingClient(true), nil) // the SDK's client answers rounds itself
	r := tooltest.Runner{Client: cs, Dir: e.root}
	r.Run(t, []tooltest.Step{
		{Tool: "asker", Args: map[string]any{"key": "q1", "line": elicitLine}, Want: `round=2 answer={"action":"accept","content":{"asked":"who?","name":"Ada"}}`},
		{Tool: "asker", Args: map[string]any{"key": "s1", "line": sampleLine}, Want: `round=2 answer=`},
		{Tool: "asker", Args: map[string]any{"key": "s1", "line": sampleLine}, Want: "forty-two"},
	})
	for _, state := range []string{"forged.state", strings.Repeat("a", 2<<20)} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "asker", Arguments: map[string]any{"key": "q1", "line": elicitLine}, RequestState: state})
		if err == nil || !strings.Contains(err.Error(), "requestState refused") {
			t.Errorf("a requestState of %d bytes the server never issued: got %v, want it refused", len(state), err)
		}
	}
}
