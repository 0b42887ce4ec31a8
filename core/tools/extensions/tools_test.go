package extensions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// objectN is an outputSchema: an object with an integer n.
const objectN = `"outputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`

// scripts are extension tools of raw scripts (no SDK), each speaking the
// host contract directly, well or badly.
var scripts = merge(
	tool("plain", `{"name":"plain","description":"prints text","inputSchema":{"type":"object","properties":{"who":{"type":"string"}},"required":["who"],"additionalProperties":false}}`,
		`echo "hello $MCP_TOOL_ARGS_JSON in $(pwd) as $MCP_TOOL_NAME"`+"\n"),
	tool("structured", `{"name":"structured","description":"a result object",`+objectN+`}`,
		`echo '{"content":[{"type":"text","text":"n is 3"}],"structuredContent":{"n":3}}'`+"\n"),
	tool("badout", `{"name":"badout","description":"violates its schema",`+objectN+`}`,
		`echo '{"content":[{"type":"text","text":"oops"}],"structuredContent":{"n":"three"}}'`+"\n"),
	tool("nostruct", `{"name":"nostruct","description":"no structured result",`+objectN+`}`, "echo just text\n"),
	tool("exit3", `{"name":"exit3","description":"fails"}`, "echo 'something broke' >&2\nexit 3\n"),
	tool("failer", `{"name":"failer","description":"mcp_fail by hand"}`,
		`code=$(printf '%s' "$MCP_TOOL_ARGS_JSON" | sed 's/[^0-9-]//g')`+"\n"+
			`printf '{"code":%s,"message":"bad things","data":{"why":"test"}}' "$code" > "$MCP_TOOL_ERROR_FILE"; exit 1`+"\n"),
	tool("recovered", `{"name":"recovered","description":"a helper failed, the tool did not"}`,
		`printf '{"code":-32001,"message":"helper failed"}' > "$MCP_TOOL_ERROR_FILE"; echo fine`+"\n"),
	tool("slow", `{"name":"slow","description":"runs past its timeout","timeoutSecs":1}`, "echo started\nsleep 30\n"),
	tool("malformed", `{"name":"malformed","description":"a result object of the wrong shape"}`, `echo '{"content":[{"type":"text","text":7}]}'`+"\n"),
	tool("bigargs", `{"name":"bigargs","description":"large arguments"}`, `echo "file=$(wc -c < "$MCP_TOOL_ARGS_FILE") inline=${MCP_TOOL_ARGS_JSON:-none}"`+"\n"),
	tool("env", `{"name":"env","description":"its environment"}`,
		`echo "secret=${BORIS_TEST_SECRET:-unset} roots=$MCP_ROOTS_PATHS meta=$MCP_TOOL_META_JSON elicit=$MCP_ELICIT_SUPPORTED sampling=$MCP_SAMPLING_SUPPORTED token=${MCP_PROGRESS_TOKEN:-none}"`+"\n"),
)

// TestExtensionTools: extension tools run with their arguments in their
// directory; what they print is the result; arguments their schema
// refuses, a failure, a timeout and a result that breaks the tool's own
// outputSchema are errors with their code.
func TestExtensionTools(t *testing.T) {
	e := loadExt(t, scripts, nil)
	e.runner(t).Run(t, []tooltest.Step{
		{Tool: "plain", Args: map[string]any{"who": "me"}, Want: `hello {"who":"me"} in $DIR as plain`},
		{Tool: "plain", Args: map[string]any{}, IsError: true, Want: "[INVALID_INPUT]"},
		{Tool: "plain", Args: map[string]any{"who": "me", "extra": 1}, IsError: true, Want: "[INVALID_INPUT]"},
		{Tool: "plain", Args: map[string]any{"who": 7}, IsError: true, Want: "[INVALID_INPUT]"},
		{Tool: "structured", Args: map[string]any{}, Want: "n is 3"},
		{Tool: "badout", Args: map[string]any{}, IsError: true, Want: "[EXEC_ERROR] extension tool badout returned a result that does not match its outputSchema"},
		{Tool: "nostruct", Args: map[string]any{}, IsError: true, Want: "[EXEC_ERROR] extension tool nostruct declares an outputSchema but returned no structured result"},
		{Tool: "exit3", Args: map[string]any{}, IsError: true, Want: "[EXEC_ERROR] extension tool exit3 exited with status 3; stderr:\nsomething broke"},
		{Tool: "failer", Args: map[string]any{"code": -32001}, IsError: true, Want: `[EXEC_ERROR] extension tool failer failed (-32001): bad things {"why":"test"}`},
		{Tool: "recovered", Args: map[string]any{}, Want: "fine\n"},
		{Tool: "slow", Args: map[string]any{}, IsError: true, Want: "[EXEC_ERROR] extension tool slow timed out after 1s and was stopped"},
		{Tool: "malformed", Args: map[string]any{}, IsError: true, Want: "[EXEC_ERROR] extension tool malformed printed a malformed result"},
		{Tool: "bigargs", Args: map[string]any{"blob": strings.Repeat("x", 70000)}, Want: "file=70011 inline=none"},
		{Tool: "bigargs", Args: map[string]any{"blob": "small"}, Want: `file= inline={"blob":"small"}`},
	})
}

// TestExtensionToolResults: a result object's structuredContent reaches
// the client, and a tool's JSON-RPC invalid params is the call's
// protocol error, not a tool error.
func TestExtensionToolResults(t *testing.T) {
	cs := loadExt(t, scripts, nil).connect(t, nil, nil)
	res := tooltest.Call(t, cs, "structured", nil)
	if sc, _ := json.Marshal(res.StructuredContent); res.IsError || string(sc) != `{"n":3}` {
		t.Errorf("structured: got isError=%v structuredContent %s, want {\"n\":3}", res.IsError, sc)
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "failer", Arguments: map[string]any{"code": -32602}})
	if err == nil || !strings.Contains(err.Error(), "bad things") {
		t.Errorf("failer -32602: got %v, want a JSON-RPC error with the tool's message", err)
	}
}

// TestExtensionToolEnvironment: a tool sees the roots, the request's
// _meta and progress token and what its client can be asked, and none
// of the core's own environment.
func TestExtensionToolEnvironment(t *testing.T) {
	e := loadExt(t, scripts, func(o *Options) { o.Environ = append(o.Environ, "BORIS_TEST_SECRET=s3cret") })
	cs := e.connect(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	params := &mcp.CallToolParams{Name: "env", Arguments: map[string]any{}, Meta: mcp.Meta{"trace": "t-1"}}
	params.SetProgressToken("tok-9")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	want := "secret=unset roots=" + e.d.Dir() + ` meta={"progressToken":"tok-9","trace":"t-1"} elicit=1 sampling=0 token=tok-9`
	if got := tooltest.Text(res); res.IsError || !strings.Contains(got, want) {
		t.Errorf("env: got isError=%v %q, want %q", res.IsError, got, want)
	}
}
