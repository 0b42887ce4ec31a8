package extensions

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/extension"
)

func TestExtArgValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"string", "a\"b\n", "sa\"b\n"},
		{"empty string", "", "s"},
		{"NUL", "a\x00b", "x"},
		{"null", nil, "jnull"},
		{"true", true, "jtrue"},
		{"false", false, "jfalse"},
		{"integer", 42.0, "j42"},
		{"negative", -7.0, "j-7"},
		{"zero", 0.0, "j0"},
		{"largest integer", 999999999999999.0, "j999999999999999"},
		{"too large", 1e15, "x"},
		{"fraction", 1.5, "x"},
		{"array", []any{1.0}, "x"},
		{"object", map[string]any{}, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extArgValue(tc.v); got != tc.want {
				t.Errorf("extArgValue(%#v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

func TestExtArgName(t *testing.T) {
	for name, want := range map[string]bool{
		"name": true, "_x1": true, "PATH": true, strings.Repeat("a", 64): true,
		"": false, "1a": false, "my-key": false, "a.b": false, "é": false, strings.Repeat("a", 65): false,
	} {
		if got := extArgName(name); got != want {
			t.Errorf("extArgName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestExtArgsGetMatchesJQ checks mcp_args_get against jq itself: for each
// arguments object and filter, the SDK run with the variables the core
// passes must print what `jq -rc FILTER` prints, without starting jq (its
// jq here is /bin/false, and in minimal mode it must not load
// tool-sdk-more.sh); filters it cannot answer so must go to jq.
func TestExtArgsGetMatchesJQ(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found on PATH: the SDK runs under bash")
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not found on PATH: it is what the SDK's answers are checked against")
	}
	sdk := t.TempDir()
	if err := extension.WriteSDK(sdk); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", 65)
	for _, tc := range []struct {
		name, args, filter string
		fast               bool // answered without jq
	}{
		{"string", `{"name":"World"}`, `.name`, true},
		{"escapes", `{"s":"a\"b\\c\/d\n\te\u0001f"}`, `.s`, true},
		{"unicode", `{"u":"héllo \u2603 😀 \ud83d\ude00"}`, `.u`, true},
		{"html", `{"h":"<a&b>"}`, `.h`, true},
		{"trailing newlines", `{"s":"x\n\n"}`, `.s`, true},
		{"empty string", `{"s":""}`, `.s`, true},
		{"integer", `{"n":42}`, `.n`, true},
		{"negative", `{"n":-7}`, `.n`, true},
		{"integral float", `{"n":1.0}`, `.n`, true},
		{"true", `{"b":true}`, `.b`, true},
		{"false", `{"b":false}`, `.b`, true},
		{"null", `{"z":null}`, `.z`, true},
		{"missing", `{}`, `.missing`, true},
		{"missing among others", `{"a":"x","o":{"missing":1}}`, `.missing`, true},
		{"identifier", `{"_x1":"v"}`, `._x1`, true},
		{"spaces", `{"name":"Ann"}`, `  .name  //  "W"  `, true},
		{"default used", `{}`, `.name // "World"`, true},
		{"default unused", `{"name":"Ann"}`, `.name // "World"`, true},
		{"default for false", `{"b":false}`, `.b // "d"`, true},
		{"default for null", `{"b":null}`, `.b // 10`, true},
		{"default kept empty string", `{"s":""}`, `.s // "d"`, true},
		{"empty", `{"b":false}`, `.b // empty`, true},
		{"negative default", `{}`, `.n // -3`, true},
		{"zero default", `{}`, `.n // 0`, true},
		{"literal defaults", `{}`, `.x // true`, true},
		{"null default", `{}`, `.x // null`, true},
		{"default with slashes", `{}`, `.u // "http://x/y"`, true},
		{"nested object", `{"o":{"a":[1,2,{"b":null}]}}`, `.o`, false},
		{"array", `{"l":[1,"a"]}`, `.l`, false},
		{"fraction", `{"n":1.5}`, `.n`, false},
		{"huge", `{"n":1e300}`, `.n`, false},
		{"big integer", `{"n":100000000000000000000}`, `.n`, false},
		{"negative zero", `{"n":-0}`, `.n`, false},
		{"NUL", `{"s":"a\u0000b"}`, `.s`, false},
		{"path", `{"o":{"a":1}}`, `.o.a`, false},
		{"whole", `{"a":1}`, `.`, false},
		{"bracket", `{"my-key":"v"}`, `.["my-key"]`, false},
		{"optional", `{"a":1}`, `.a?`, false},
		{"keyword", `{"if":1}`, `.if`, false},
		{"long name", `{"` + long + `":1}`, `.` + long, false},
		{"fraction default", `{}`, `.n // 1.5`, false},
		{"escaped default", `{}`, `.s // "a\"b"`, false},
		{"octal-looking default", `{}`, `.n // 007`, false},
		{"filter default", `{"a":1}`, `.n // .a`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			argsJSON, err := json.Marshal(args) // as the core passes them
			if err != nil {
				t.Fatal(err)
			}
			env := append([]string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "MCP_SDK=" + sdk,
				"MCP_TOOL_ARGS_JSON=" + string(argsJSON), "F=" + tc.filter}, extArgVars(args, argsJSON)...)
			script := `source "$MCP_SDK/tool-sdk.sh"; mcp_args_get "$F"; printf '\037%s' "${__mcp_sdk_more_loaded}"`
			run := func(extra ...string) (out, more string, err error) {
				cmd := exec.Command(bash, "-c", "set -euo pipefail; "+script)
				cmd.Env = append(env[:len(env):len(env)], extra...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				b, err := cmd.Output()
				if err != nil {
					return "", "", errors.Join(err, errors.New(stderr.String()))
				}
				s := string(b)
				i := strings.LastIndexByte(s, '\037')
				return s[:i], s[i+1:], nil
			}
			want, err := jqOutput(jq, argsJSON, tc.filter)
			if tc.fast && err != nil {
				t.Fatalf("jq -rc %q: %v", tc.filter, err)
			}
			got, _, err := run("MCPBASH_JSON_TOOL=jq", "MCPBASH_JSON_TOOL_BIN=/bin/false")
			if !tc.fast {
				if err == nil {
					t.Fatalf("answered %q without jq, want it left to jq", got)
				}
				return
			}
			if err != nil || got != want {
				t.Fatalf("jq mode: got %q (%v), want %q as jq prints it", got, err, want)
			}
			got, more, err := run("MCPBASH_JSON_TOOL=none")
			if err != nil || got != want || more != "" {
				t.Fatalf("minimal mode: got %q (%v, tool-sdk-more.sh loaded %q), want %q and nothing loaded", got, err, more, want)
			}
			if got, _, err := run("MCPBASH_JSON_TOOL=jq", "MCPBASH_JSON_TOOL_BIN="+jq); err != nil || got != want {
				t.Fatalf("with jq: got %q (%v), want %q", got, err, want)
			}
		})
	}
}

// TestExtArgsGetStale checks that a tool that sets MCP_TOOL_ARGS_JSON
// itself is answered from it, not from the variables the core made from
// the call's arguments.
func TestExtArgsGetStale(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found on PATH: the SDK runs under bash")
	}
	sdk := t.TempDir()
	if err := extension.WriteSDK(sdk); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"name": "A"}
	argsJSON, _ := json.Marshal(args)
	cmd := exec.Command(bash, "-c", `set -euo pipefail; source "$MCP_SDK/tool-sdk.sh"; MCP_TOOL_ARGS_JSON='{"name":"Bob"}'; mcp_args_get .name`)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "MCP_SDK=" + sdk, "MCPBASH_JSON_TOOL=none",
		"MCP_TOOL_ARGS_JSON=" + string(argsJSON)}, extArgVars(args, argsJSON)...)
	out, err := cmd.Output()
	if err != nil || string(out) != "Bob" {
		t.Errorf("got %q (%v), want \"Bob\" (the arguments the tool set)", out, err)
	}
}

// jqOutput is what the SDK's jq path prints for filter: jq's output
// without its last newline.
func jqOutput(jq string, input []byte, filter string) (string, error) {
	cmd := exec.Command(jq, "-rc", filter)
	cmd.Stdin = bytes.NewReader(input)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	return strings.TrimSuffix(string(out), "\n"), err
}
