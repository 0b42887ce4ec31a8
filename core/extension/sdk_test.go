package extension

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// The SDK tests run small bash scripts that source the embedded SDK under
// Boris's host contract (the variables a tool process gets), once with jq
// and once without it (MCPBASH_JSON_TOOL=none and no jq on PATH), and check
// what a client would see: stdout, the progress and log streams, the error
// file and the exit status.

// sdkTools are the commands the SDK and the demo tools use; the tests give
// the scripts a PATH holding only these (and jq in jq mode).
var sdkTools = []string{"bash", "cat", "grep", "tr", "sed", "wc", "mktemp", "base64",
	"file", "sleep", "date", "realpath", "tail", "mkfifo", "rm", "head", "sh", "printf"}

// sdkHost is one tool process's host side, in a temporary directory.
type sdkHost struct {
	dir      string // MCPBASH_PROJECT_ROOT
	sdk      string // MCP_SDK
	progress string // MCP_PROGRESS_STREAM
	logs     string // MCP_LOG_STREAM
	errFile  string // MCP_TOOL_ERROR_FILE
	cancel   string // MCP_TOOL_CANCELLATION_FILE
	jq       string // jq's path; "" in minimal mode
	bin      string // PATH
}

// sdkRun is what one script did.
type sdkRun struct {
	stdout, stderr string
	code           int
}

// sdkModes runs f once per JSON mode: "jq" (skipped when jq is missing) and
// "none".
func sdkModes(t *testing.T, f func(t *testing.T, h *sdkHost)) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found on PATH: the SDK tests run tool scripts under bash")
	}
	for _, mode := range []string{"jq", "none"} {
		t.Run(mode, func(t *testing.T) {
			jq := ""
			if mode == "jq" {
				p, err := exec.LookPath("jq")
				if err != nil {
					t.Skip("jq not found on PATH: the SDK's jq mode is not tested")
				}
				jq = p
			}
			f(t, newSDKHost(t, jq))
		})
	}
}

func newSDKHost(t *testing.T, jq string) *sdkHost {
	t.Helper()
	dir := t.TempDir()
	h := &sdkHost{
		dir:      filepath.Join(dir, "project"),
		sdk:      filepath.Join(dir, "sdk"),
		progress: filepath.Join(dir, "progress.jsonl"),
		logs:     filepath.Join(dir, "log.jsonl"),
		errFile:  filepath.Join(dir, "error.json"),
		cancel:   filepath.Join(dir, "cancelled"),
		jq:       jq,
		bin:      filepath.Join(dir, "bin"),
	}
	for _, d := range []string{h.dir, h.sdk, h.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteSDK(h.sdk); err != nil {
		t.Fatal(err)
	}
	tools := sdkTools
	if jq != "" {
		tools = append(tools[:len(tools):len(tools)], "jq")
	}
	for _, name := range tools {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(h.bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return h
}

// env is the host contract; extra entries ("K=V") override it, and "K"
// alone removes K.
func (h *sdkHost) env(extra ...string) []string {
	vars := map[string]string{
		"PATH":                       h.bin,
		"HOME":                       h.dir,
		"MCP_SDK":                    h.sdk,
		"MCPBASH_PROJECT_ROOT":       h.dir,
		"MCP_TOOL_NAME":              "test",
		"MCP_TOOL_ARGS_JSON":         "{}",
		"MCP_TOOL_META_JSON":         "{}",
		"MCP_PROGRESS_TOKEN":         "tok-1",
		"MCP_PROGRESS_STREAM":        h.progress,
		"MCP_LOG_STREAM":             h.logs,
		"MCP_TOOL_CANCELLATION_FILE": h.cancel,
		"MCP_CANCEL_FILE":            h.cancel,
		"MCP_TOOL_ERROR_FILE":        h.errFile,
		"MCPBASH_JSON_TOOL":          "none",
	}
	if h.jq != "" {
		vars["MCPBASH_JSON_TOOL"] = "jq"
		vars["MCPBASH_JSON_TOOL_BIN"] = h.jq
	}
	for _, e := range extra {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			delete(vars, k)
			continue
		}
		vars[k] = v
	}
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

// start starts argv under the host contract. Its deadline only ends a
// hung script: a busy machine (make test runs packages side by side on two
// cores) may take many seconds for a script of dozens of jq runs.
func (h *sdkHost) start(t *testing.T, argv []string, extra ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = h.dir
	cmd.Env = h.env(extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

func wait(t *testing.T, cmd *exec.Cmd, stdout, stderr *bytes.Buffer) sdkRun {
	t.Helper()
	err := cmd.Wait()
	r := sdkRun{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run: %v (stderr %q)", err, r.stderr)
	}
	return r
}

// script runs a bash script that sources the SDK as tools do.
func (h *sdkHost) script(t *testing.T, body string, extra ...string) sdkRun {
	t.Helper()
	src := "set -euo pipefail\nsource \"${MCP_SDK}/tool-sdk.sh\"\n" + body
	cmd, stdout, stderr := h.start(t, []string{filepath.Join(h.bin, "bash"), "-c", src}, extra...)
	return wait(t, cmd, stdout, stderr)
}

// lines decodes a stream file, one JSON value a line.
func lines(t *testing.T, path string) []any {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l != "" {
			out = append(out, decode(t, l))
		}
	}
	return out
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %q: %v", s, err)
	}
	return v
}

// errorFile decodes what mcp_fail wrote; nil when it wrote nothing.
func (h *sdkHost) errorFile(t *testing.T) any {
	t.Helper()
	data, err := os.ReadFile(h.errFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(data))
}

func TestSDKJSONStrings(t *testing.T) {
	values := []string{
		"plain", `he said "hi"`, "two\nlines\r\n", "tab\there", `back\slash \n not a newline`,
		"ünïcödé ✓ 😀", "controls \x01\x08\x0c\x1f and DEL \x7f", "", `{"not":"json"}`, `ends with \`,
		"<html> & \u2028",
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		for _, lang := range []string{"LANG=C", "LANG=C.UTF-8"} {
			var env []string
			var objArgs, arrArgs []string
			want := map[string]any{}
			var wantArr []any
			for i, v := range values {
				k := "k" + string(rune('a'+i))
				env = append(env, "V"+k+"="+v)
				objArgs = append(objArgs, k, `"$V`+k+`"`)
				arrArgs = append(arrArgs, `"$V`+k+`"`)
				want[k] = v
				wantArr = append(wantArr, v)
			}
			env = append(env, lang)
			r := h.script(t, "mcp_json_obj "+strings.Join(objArgs, " ")+"\necho\nmcp_json_arr "+
				strings.Join(arrArgs, " ")+"\necho\nmcp_json_escape \"$Vka\"", env...)
			out := strings.Split(r.stdout, "\n")
			if r.code != 0 || len(out) != 3 {
				t.Fatalf("%s: status %d, stdout %q, stderr %q", lang, r.code, r.stdout, r.stderr)
			}
			if diff := cmp.Diff(any(want), decode(t, out[0])); diff != "" {
				t.Errorf("%s: mcp_json_obj (-want +got):\n%s", lang, diff)
			}
			if diff := cmp.Diff(any(wantArr), decode(t, out[1])); diff != "" {
				t.Errorf("%s: mcp_json_arr (-want +got):\n%s", lang, diff)
			}
			if out[2] != `"plain"` {
				t.Errorf("%s: mcp_json_escape: got %s, want \"plain\"", lang, out[2])
			}

			// The same strings come back out of the arguments unchanged.
			args, _ := json.Marshal(want)
			for k, v := range want {
				r := h.script(t, "mcp_args_get ."+k, "MCP_TOOL_ARGS_JSON="+string(args), lang)
				if r.code != 0 || r.stdout != v.(string) {
					t.Errorf("%s: mcp_args_get .%s: got %q (status %d, stderr %q), want %q", lang, k, r.stdout, r.code, r.stderr, v)
				}
			}
		}
		r := h.script(t, "mcp_args_get .s", `MCP_TOOL_ARGS_JSON={"s":"\ud83d\ude00 \u00e9\u0041\/"}`)
		if r.stdout != "😀 éA/" {
			t.Errorf("escapes: got %q, want %q", r.stdout, "😀 éA/")
		}
	})
}

func TestSDKArgs(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	bigArgs, _ := json.Marshal(map[string]any{"value": big, "n": 3})
	tests := []struct {
		name, args, script string
		want               string
		wantErr            string // the error file, when the tool fails
		noneErr            string // the error file without jq, when it differs
	}{
		{name: "require", args: `{"value":"x y"}`, script: "mcp_args_require .value", want: "x y"},
		{name: "require missing", args: `{}`, script: "mcp_args_require .value",
			wantErr: `{"code":-32602,"message":".value is required"}`},
		{name: "require null", args: `{"value":null}`, script: "mcp_args_require .value 'send a value'",
			wantErr: `{"code":-32602,"message":"send a value"}`},
		{name: "require empty", args: `{"value":""}`, script: "mcp_args_require .value",
			wantErr: `{"code":-32602,"message":".value is required"}`},
		{name: "int default", args: `{}`, script: "mcp_args_int .n --default 10 --min 1 --max 200", want: "10"},
		{name: "int", args: `{"n":5}`, script: "mcp_args_int .n --default 10 --min 1 --max 200", want: "5"},
		{name: "int negative", args: `{"n":-3}`, script: "mcp_args_int .n", want: "-3"},
		{name: "int below", args: `{"n":0}`, script: "mcp_args_int .n --min 1",
			wantErr: `{"code":-32602,"message":".n must be >= 1"}`},
		{name: "int above", args: `{"n":500}`, script: "mcp_args_int .n --max 200",
			wantErr: `{"code":-32602,"message":".n must be <= 200"}`},
		{name: "int not", args: `{"n":"ten"}`, script: "mcp_args_int .n",
			wantErr: `{"code":-32602,"message":".n must be an integer"}`},
		{name: "int required", args: `{}`, script: "mcp_args_int .n --min 1",
			wantErr: `{"code":-32602,"message":".n is required"}`},
		{name: "bool true", args: `{"b":true}`, script: "mcp_args_bool .b", want: "true"},
		{name: "bool one", args: `{"b":1}`, script: "mcp_args_bool .b", want: "true"},
		{name: "bool false", args: `{"b":false}`, script: "mcp_args_bool .b --default true", want: "false"},
		{name: "bool default", args: `{}`, script: "mcp_args_bool .b --default true", want: "true"},
		{name: "bool required", args: `{}`, script: "mcp_args_bool .b",
			wantErr: `{"code":-32602,"message":".b is required"}`},
		{name: "nested default", args: `{"o":{"k":null}}`, script: `mcp_args_get '.o.k // "d"'`, want: "d"},
		{name: "nested", args: `{"o":{"k":[1, {"z":true}]}}`, script: `mcp_args_get '.o.k'`, want: `[1,{"z":true}]`},
		{name: "empty alternative", args: `{}`, script: `mcp_args_get '.path // empty'`, want: ""},
		{name: "raw", args: `{"a":1}`, script: "mcp_args_raw", want: `{"a":1}`},
		{name: "jq filter", args: `{"items":[1,2]}`, script: "mcp_args_get '.items | length'", want: "2",
			noneErr: `{"code":-32603,"message":"mcp_args_get: the filter '.items | length' needs jq, and this host runs tools without it (MCPBASH_JSON_TOOL=none); install jq, or read the arguments with mcp_args_raw"}`},
		{name: "meta", script: "mcp_meta_get .user; mcp_meta_raw", want: `ann{"user":"ann"}`},
		{name: "large args from a file", script: "mcp_args_get .value | wc -c | tr -d ' '; mcp_args_int .n",
			want: "102400\n3"},
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		argsFile := filepath.Join(t.TempDir(), "args.json")
		if err := os.WriteFile(argsFile, bigArgs, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				os.Remove(h.errFile)
				env := []string{"MCP_TOOL_ARGS_JSON=" + tt.args, `MCP_TOOL_META_JSON={"user":"ann"}`}
				if tt.name == "large args from a file" {
					env = []string{"MCP_TOOL_ARGS_JSON", "MCP_TOOL_ARGS_FILE=" + argsFile}
				}
				r := h.script(t, tt.script, env...)
				wantErr := tt.wantErr
				if h.jq == "" && tt.noneErr != "" {
					wantErr = tt.noneErr
				}
				if wantErr == "" {
					if r.code != 0 || r.stdout != tt.want {
						t.Errorf("got %q (status %d, stderr %q), want %q", r.stdout, r.code, r.stderr, tt.want)
					}
					return
				}
				if r.code != 1 {
					t.Errorf("status: got %d, want 1 (stderr %q)", r.code, r.stderr)
				}
				if diff := cmp.Diff(decode(t, wantErr), h.errorFile(t)); diff != "" {
					t.Errorf("error file (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestSDKResults(t *testing.T) {
	env := func(r string) string { return `{"success":true,"result":` + r + `}` }
	text := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	tests := []struct {
		name, script, want string
		wantNone           string // without jq, when it differs
	}{
		{name: "success", script: `mcp_result_success "$(mcp_json_obj message hi)"`,
			want: `{"content":[{"type":"text","text":` + text(env(`{"message":"hi"}`)) + `}],` +
				`"structuredContent":` + env(`{"message":"hi"}`) + `,"isError":false}`},
		{name: "success summarised", script: `MCPBASH_MAX_TEXT_BYTES=20 mcp_result_success '[1,2,3]'`,
			want: `{"content":[{"type":"text","text":"Success: array of 3 items; the full result (33 bytes) is in structuredContent"}],` +
				`"structuredContent":` + env(`[1,2,3]`) + `,"isError":false}`,
			wantNone: `{"content":[{"type":"text","text":"Success: array value; the full result (33 bytes) is in structuredContent"}],` +
				`"structuredContent":` + env(`[1,2,3]`) + `,"isError":false}`},
		{name: "success not JSON", script: `mcp_result_success 'not json'`,
			want: `{"content":[{"type":"text","text":"mcp_result_success: the data is not one JSON value"}],` +
				`"structuredContent":{"success":false,"error":{"type":"internal_error","message":"mcp_result_success: the data is not one JSON value"}},"isError":true}`},
		{name: "result error", script: `mcp_result_error '{"type":"validation_error","message":"bad","min":1}'`,
			want: `{"content":[{"type":"text","text":"bad"}],` +
				`"structuredContent":{"success":false,"error":{"type":"validation_error","message":"bad","min":1}},"isError":true}`},
		{name: "result error defaults", script: `mcp_result_error '{"code":7}'`,
			want: `{"content":[{"type":"text","text":"Unknown error"}],` +
				`"structuredContent":{"success":false,"error":{"type":"internal_error","message":"Unknown error","code":7}},"isError":true}`},
		{name: "result error text", script: `mcp_result_error 'it "broke"'`,
			want: `{"content":[{"type":"text","text":"it \"broke\""}],` +
				`"structuredContent":{"success":false,"error":{"type":"internal_error","message":"it \"broke\""}},"isError":true}`},
		{name: "mcp_error", script: `mcp_error not_found "No user" --hint "Check the id" --data '{"id": 7}'`,
			want: `{"content":[{"type":"text","text":"No user\nHint: Check the id"}],` +
				`"structuredContent":{"success":false,"error":{"type":"not_found","message":"No user","hint":"Check the id","data":{"id":7}}},"isError":true}`},
		{name: "mcp_error bad data", script: `mcp_error cli_error "Failed" --data '{oops'`,
			want: `{"content":[{"type":"text","text":"Failed"}],` +
				`"structuredContent":{"success":false,"error":{"type":"cli_error","message":"Failed","data":{"_invalid_json":"{oops"}}},"isError":true}`},
		{name: "first result wins", script: `mcp_error not_found "gone"; mcp_result_success '{}'`,
			want: `{"content":[{"type":"text","text":"gone"}],` +
				`"structuredContent":{"success":false,"error":{"type":"not_found","message":"gone"}},"isError":true}`},
		{name: "emit json", script: `mcp_emit_json '{ "a" : [1, 2] }'`, want: `{"a":[1,2]}`},
		{name: "truncate", script: `mcp_json_truncate '[1,2,3,4,5,6,7,8,9,10]' 12`,
			want:     `{"result":[1,2,3,4,5],"truncated":true,"kept":5,"total":10}`,
			wantNone: `{"result":[1,2,3,4,5,6,7,8,9,10],"truncated":false,"_warning":"truncation needs jq"}`},
		{name: "truncate path", script: `mcp_json_truncate '{"data":[1,2,3],"n":1}' 1000 --array-path .data`,
			want:     `{"result":{"data":[1,2,3],"n":1},"truncated":false,"kept":3,"total":3}`,
			wantNone: `{"result":{"data":[1,2,3],"n":1},"truncated":false,"_warning":"truncation needs jq"}`},
		{name: "truncate bad path", script: `mcp_json_truncate '{}' 10 --array-path '.a[0]'`,
			want: `{"result":null,"truncated":false,"error":{"type":"invalid_path_syntax","message":"Invalid path syntax: .a[0] (use .key or .key.nested)"}}`},
		{name: "valid json", script: `for v in '{"a":[1,{"b":null}]}' false '"s"' '{"a":1,}' '1 2' '' '[1,'; do mcp_is_valid_json "$v" && printf 1 || printf 0; done`,
			want: "1110000"},
		{name: "valid json, cheap answers", script: `for v in 'plain text' '  ' '{"a":"b"}' ' [1, 2] ' 12 nul - tru '{"a":"b"' '[1,"x",null]'; do mcp_is_valid_json "$v" && printf 1 || printf 0; done`,
			want: "0011100001"},
		{name: "byte length", script: `mcp_byte_length 'héllo ✓'`, want: "10"},
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := h.script(t, tt.script)
				want := tt.want
				if h.jq == "" && tt.wantNone != "" {
					want = tt.wantNone
				}
				if r.code != 0 {
					t.Fatalf("status %d, stderr %q", r.code, r.stderr)
				}
				if !json.Valid([]byte(want)) {
					if r.stdout != want {
						t.Errorf("got %q, want %q", r.stdout, want)
					}
					return
				}
				if strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
					t.Errorf("stdout is not one line: %q", r.stdout)
				}
				if diff := cmp.Diff(decode(t, want), decode(t, r.stdout)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	})
}

// TestSDKResultData checks which data mcp_result_success takes: small
// objects and arrays of plain values are checked by one regular expression,
// everything else by the full parser (or jq); both must agree with a JSON
// parser on every input.
func TestSDKResultData(t *testing.T) {
	data := []string{
		`{"message":"hello"}`, `{}`, `[]`, ` { "a" : 1 , "b" : [1] } `, "{\n\t\"a\": \"b\"\r\n}",
		`{"a":"x\u00e9\n","b":-1.5e3,"c":null,"d":true,"e":false,"f":0}`, `["a",true,false,null,0.5]`,
		`{"a":{"b":[1,{"c":"d"}]}}`, `"s"`, `7`, `null`, `[{"a":1},{"a":2}]`, `{"{":"["}`,
		`{"a":01}`, `{"a":"x"`, `{"a":"x",}`, `{,}`, `[1,]`, `{"a":"b"}{"c":1}`, `{"a":'b'}`,
		`{"a":"\x"}`, "{\"a\":\"tab\there\"}", `{"a" "b"}`, `{a:1}`, `[1 2]`, `{"a":.5}`, `{"a":1.}`,
		`{"a":-}`, `{"a":tru}`, `{"a":truex}`, `{"a":-0}`, `{"a":00}`, `{"a":-01}`, `[1,-2,30]`, `[--1]`,
		`{"":""}`, `["\""]`, `[" "]`, `{"a":"x"}x`, `{"a""b"}`, `["x",]`, `[,"x"]`, `{"a":"b":"c"}`, `{"a"}`, `{"a":}`,
		`{"a":"b","c"}`, `[""`, `{"a":"\u0041"}`, "[\"\x01\"]", "[\"\x7f\"]", `[1.5e2,"é"]`,
		"{\"a\":\"b\"}\v", "\f[]", `{"a":1}"`, `["a""b"]`, `[`, `]`,
		`["\\"]`, `["\\\""]`, `["a\\\\\"b"]`, `["\"]`, `["\\\"]`, `["\q"]`, `["\u12"]`, `["\u12G4"]`, `["\uD83D\uDE00 ok"]`,
		`{"k\"ey":"v\/\b\f\n\r\t"}`, `{"a":"\\u0041"}`, `["\\\\u12"]`,
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		var env []string
		var script strings.Builder
		for i, d := range data {
			env = append(env, fmt.Sprintf("D%d=%s", i, d))
			fmt.Fprintf(&script, "(mcp_result_success \"$D%d\")\n", i)
		}
		r := h.script(t, script.String(), env...)
		out := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || len(out) != len(data) {
			t.Fatalf("status %d, %d results for %d data, stderr %q", r.code, len(out), len(data), r.stderr)
		}
		for i, d := range data {
			var res struct {
				IsError           bool `json:"isError"`
				StructuredContent struct {
					Result any `json:"result"`
				} `json:"structuredContent"`
			}
			if err := json.Unmarshal([]byte(out[i]), &res); err != nil {
				t.Errorf("%q: printed %q: %v", d, out[i], err)
				continue
			}
			var want any
			valid := json.Unmarshal([]byte(d), &want) == nil
			if res.IsError == valid {
				t.Errorf("%q: isError %v, want %v", d, res.IsError, !valid)
				continue
			}
			if diff := cmp.Diff(want, res.StructuredContent.Result); valid && diff != "" {
				t.Errorf("%q: result (-want +got):\n%s", d, diff)
			}
		}
	})
}

// TestSDKLoadsTheRest checks the helpers tool-sdk.sh leaves to
// tool-sdk-more.sh: they work as first called, after the tool changed
// directory, when the SDK was sourced by a relative path, and after a
// subshell loaded them for itself only.
func TestSDKLoadsTheRest(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		for _, tc := range []struct{ name, script, want string }{
			{"after cd", `cd / && mcp_roots_count`, "1"},
			{"relative source", `cd "$MCP_SDK" && source ./tool-sdk.sh && cd / && mcp_config_load --defaults '{"a":2}' && mcp_config_get .a`, "2"},
			{"subshell first", `n="$(mcp_roots_count)"; printf '%s ' "$n"; mcp_roots_count`, "1 1"},
			{"retry", `mcp_with_retry 2 0 true && printf ok`, "ok"},
			{"minimal reader", `mcp_args_get '.a.b // "d"'`, "d"},
			// Stubs since tool-sdk.sh keeps only the common path.
			{"int", `mcp_args_int .n --default 7`, "7"},
			{"fail in a subshell", `v="$(mcp_args_require .missing)" || printf 'failed %s ' "$?"; mcp_args_int .n --default 3`, "failed 1 3"},
			{"rare control character", `mcp_json_obj k "$(printf 'a\001b')"`, `{"k":"a\u0001b"}`},
			{"error result", `mcp_error not_found "no such thing"`, `{"content":[{"type":"text","text":"no such thing"}],"structuredContent":{"success":false,"error":{"type":"not_found","message":"no such thing"}},"isError":true}` + "\n"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := h.script(t, tc.script, "MCP_ROOTS_PATHS="+h.dir)
				if r.code != 0 || r.stdout != tc.want {
					t.Errorf("got %q (status %d, stderr %q), want %q", r.stdout, r.code, r.stderr, tc.want)
				}
			})
		}
	})
}

// TestSDKCheapWithoutJQ checks the helpers that answer common inputs
// without starting jq (~18 ms each): the host's jq here is /bin/false, so
// an answer that needed it would be wrong.
func TestSDKCheapWithoutJQ(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found on PATH: the SDK tests run tool scripts under bash")
	}
	h := newSDKHost(t, "/bin/false")
	for _, tc := range []struct{ name, script, want string }{
		{"plain text is not JSON", `mcp_is_valid_json 'plain text' && printf 1 || printf 0`, "0"},
		{"an object is", `mcp_is_valid_json '{"a":"b","n":1}' && printf 1 || printf 0`, "1"},
		{"small result", `mcp_result_success "$(mcp_json_obj message hi)"`, `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"hi\"}}"}],"structuredContent":{"success":true,"result":{"message":"hi"}},"isError":false}` + "\n"},
		{"log", `mcp_log INFO demo 'plain text' && cat "$MCP_LOG_STREAM"`, `{"level":"info","logger":"demo","data":"plain text"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.script(t, tc.script)
			if r.code != 0 || r.stdout != tc.want {
				t.Errorf("got %q (status %d, stderr %q), want %q", r.stdout, r.code, r.stderr, tc.want)
			}
		})
	}
}

func TestSDKResultWithResource(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		txt := filepath.Join(h.dir, "report.txt")
		bin := filepath.Join(h.dir, "blob.bin")
		os.WriteFile(txt, []byte("line \"one\"\nline two\n"), 0o644)
		os.WriteFile(bin, []byte{0, 1, 2, 255}, 0o644)
		r := h.script(t, `mcp_result_text_with_resource "$(mcp_json_obj m x)" --path report.txt --mime text/plain `+
			`--path blob.bin --mime application/octet-stream --uri demo://blob --path missing.txt`)
		want := `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"m\":\"x\"}}"},` +
			`{"type":"resource","resource":{"uri":"file://` + txt + `","mimeType":"text/plain","text":"line \"one\"\nline two\n"}},` +
			`{"type":"resource","resource":{"uri":"demo://blob","mimeType":"application/octet-stream","blob":"AAEC/w=="}}],` +
			`"structuredContent":{"success":true,"result":{"m":"x"}},"isError":false}`
		if diff := cmp.Diff(decode(t, want), decode(t, r.stdout)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if got := lines(t, h.logs); len(got) != 1 || !strings.Contains(got[0].(map[string]any)["data"].(string), "missing.txt") {
			t.Errorf("logs: got %v, want one warning naming missing.txt", got)
		}
	})
}

func TestSDKFail(t *testing.T) {
	tests := []struct {
		name, script, want, stderr string
		noFile                     bool
	}{
		{name: "code message data", script: `mcp_fail -32001 "Cancelled" '{"step": 3}'`,
			want: `{"code":-32001,"message":"Cancelled","data":{"step":3}}`, stderr: "Cancelled\n"},
		{name: "invalid args", script: `mcp_fail_invalid_args "count must be positive"`,
			want: `{"code":-32602,"message":"count must be positive"}`, stderr: "count must be positive\n"},
		{name: "bad code", script: `mcp_fail oops "broken"`,
			want: `{"code":-32603,"message":"broken"}`, stderr: "broken\n"},
		{name: "data not JSON", script: `mcp_fail -32603 "broken" 'not json'`,
			want: `{"code":-32603,"message":"broken","data":"not json"}`, stderr: "broken\n"},
		{name: "from a command substitution", script: `v="$(mcp_fail_invalid_args "inner")"; echo "not reached"`,
			want: `{"code":-32602,"message":"inner"}`, stderr: "inner\n"},
		{name: "run by hand", script: `mcp_fail -32603 "by hand"`, noFile: true,
			want: `{"code":-32603,"message":"by hand"}`, stderr: "by hand\n"},
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				os.Remove(h.errFile)
				var env []string
				if tt.noFile {
					env = append(env, "MCP_TOOL_ERROR_FILE")
				}
				r := h.script(t, tt.script, env...)
				if r.code != 1 || r.stderr != tt.stderr {
					t.Errorf("got status %d, stderr %q; want 1, %q", r.code, r.stderr, tt.stderr)
				}
				got := h.errorFile(t)
				if tt.noFile {
					got = decode(t, r.stdout)
				} else if r.stdout != "" {
					t.Errorf("stdout: got %q, want nothing", r.stdout)
				}
				if diff := cmp.Diff(decode(t, tt.want), got); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestSDKProgressAndLogs(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		r := h.script(t, `mcp_progress 25 "a quarter"
mcp_progress 150 "too far"
mcp_progress 3 "three of five" 5
mcp_progress 2.7
mcp_progress -4 "negative"
mcp_log_info "demo" 'said "hi"'
mcp_log_warn "demo" "careful"
mcp_log_debug "only a message"
mcp_log notice "demo" '{"event": "done", "n": [1, 2]}'
mcp_log WARN "demo" "plain text"
mcp_log bogus "demo" "42"
mcp_log_error "demo" $'two\nlines'`)
		if r.code != 0 {
			t.Fatalf("status %d, stderr %q", r.code, r.stderr)
		}
		wantProgress := `[{"progress":25,"message":"a quarter"},{"progress":100,"message":"too far"},` +
			`{"progress":3,"total":5,"message":"three of five"},{"progress":2},{"progress":0,"message":"negative"}]`
		if diff := cmp.Diff(decode(t, wantProgress), any(lines(t, h.progress))); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
		wantLogs := `[{"level":"info","logger":"demo","data":"said \"hi\""},` +
			`{"level":"warning","logger":"demo","data":"careful"},` +
			`{"level":"debug","logger":"test","data":"only a message"},` +
			`{"level":"notice","logger":"demo","data":{"event":"done","n":[1,2]}},` +
			`{"level":"warning","logger":"demo","data":"plain text"},` +
			`{"level":"info","logger":"demo","data":42},` +
			`{"level":"error","logger":"demo","data":"two\nlines"}]`
		if diff := cmp.Diff(decode(t, wantLogs), any(lines(t, h.logs))); diff != "" {
			t.Errorf("logs (-want +got):\n%s", diff)
		}
		if !strings.Contains(r.stderr, "mcp_log: unknown level 'bogus'") {
			t.Errorf("stderr: got %q, want a warning about level bogus", r.stderr)
		}

		os.Remove(h.progress)
		r = h.script(t, `mcp_progress 50 "unasked"`, "MCP_PROGRESS_TOKEN")
		if got := lines(t, h.progress); r.code != 0 || got != nil {
			t.Errorf("without a progress token: got status %d and %v, want 0 and no progress", r.code, got)
		}
	})
}

func TestSDKRunWithProgress(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		r := h.script(t, `mcp_run_with_progress --pattern '([0-9]+)/([0-9]+)' --extract ratio --quiet -- \
	sh -c 'echo "1/4" >&2; echo out; echo "noise" >&2; printf "3/4\r" >&2; exit 3' || echo "status $?"`)
		if r.stdout != "out\nstatus 3\n" || r.stderr != "noise\n" {
			t.Errorf("got stdout %q, stderr %q; want the command's stdout, status 3 and its non-progress stderr", r.stdout, r.stderr)
		}
		want := `[{"progress":25,"message":"1/4"},{"progress":75,"message":"3/4"}]`
		if diff := cmp.Diff(decode(t, want), any(lines(t, h.progress))); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})
}

func TestSDKCancellation(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		r := h.script(t, `mcp_is_cancelled && echo yes || echo no; : >"$MCP_CANCEL_FILE"; mcp_is_cancelled && echo yes || echo no`,
			"MCP_TOOL_CANCELLATION_FILE")
		if r.stdout != "no\nyes\n" {
			t.Errorf("mcp_is_cancelled before and after: got %q, want no, yes", r.stdout)
		}
		os.Remove(h.cancel)

		// The demo's slow tool stops at the first check after the file appears.
		tool := filepath.Join(demoDir(t), "tools", "slow", "tool.sh")
		cmd, stdout, stderr := h.start(t, []string{filepath.Join(h.bin, "bash"), tool},
			`MCP_TOOL_ARGS_JSON={"steps":100,"delayMs":50}`)
		deadline := time.Now().Add(10 * time.Second)
		for len(lines(t, h.progress)) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if err := os.WriteFile(h.cancel, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r = wait(t, cmd, stdout, stderr)
		if r.code != 1 || r.stdout != "" {
			t.Errorf("got status %d, stdout %q; want 1 and no result", r.code, r.stdout)
		}
		got, _ := h.errorFile(t).(map[string]any)
		if got["code"] != float64(-32001) || !strings.HasPrefix(got["message"].(string), "Cancelled after ") {
			t.Errorf("error file: got %v, want code -32001 and a Cancelled message", got)
		}
		if n := len(lines(t, h.progress)); n == 0 || n >= 100 {
			t.Errorf("progress lines: got %d, want some but not all 100", n)
		}
	})
}

func TestSDKRetry(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		r := h.script(t, `count=0
flaky() { count=$((count + 1)); return "$1"; }
mcp_with_retry 3 0.01 -- flaky 5 || echo "status $? after $count"
count=0
mcp_with_retry 3 0.01 -- flaky 2 || echo "status $? after $count"
count=0
mcp_with_retry 3 0.01 flaky 0 && echo "status 0 after $count"`)
		want := "status 5 after 3\nstatus 2 after 1\nstatus 0 after 1\n"
		if r.stdout != want {
			t.Errorf("got %q (stderr %q), want %q", r.stdout, r.stderr, want)
		}
	})
}

func TestSDKHostless(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		tests := []struct{ name, script, want string }{
			{"elicit", `mcp_elicit_confirm "Sure?" || echo " status $?"`, `{"action":"decline","content":null} status 1` + "\n"},
			{"download", `mcp_download_safe --url https://example.com --out x`,
				`{"success":false,"error":{"type":"provider_unavailable","message":"mcp_download_safe is not provided by Boris; fetch with curl (the sandbox decides what the network allows)"}}`},
			{"ui", `mcp_client_supports_ui || echo "no ui"`, "no ui\n"},
			{"ui result", `mcp_result_with_ui "" "Dashboard ready" '{"items":42}'`,
				`{"content":[{"type":"text","text":"Dashboard ready"}],"structuredContent":{"items":42},"isError":false}` + "\n"},
			{"roots", `mcp_roots_count; echo; mcp_roots_list; mcp_roots_contains "$MCPBASH_PROJECT_ROOT/a/../b" && echo in; mcp_roots_contains /etc || echo out`,
				"1\n" + h.dir + "\nin\nout\n"},
			{"roots from the host", `mcp_roots_count; echo; mcp_roots_contains /srv/two/x && echo in`, "2\nin\n"},
			{"require path", `mcp_require_path .p`, h.dir + "/sub"},
			{"config", `mcp_config_load --env CFG --file missing.json --defaults '{"timeout":30,"retries":3}'
mcp_config_get .retries; mcp_config_get .timeout; mcp_config_get .nope --default d; mcp_config_get .nope || echo " unset"`,
				"330d unset\n"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				env := []string{`MCP_TOOL_ARGS_JSON={"p":"sub"}`, `CFG={"retries":3}`}
				if tt.name == "roots from the host" {
					env = append(env, "MCP_ROOTS_PATHS=/srv/one\n/srv/two")
				}
				r := h.script(t, tt.script, env...)
				if r.stdout != tt.want {
					t.Errorf("got %q (status %d, stderr %q), want %q", r.stdout, r.code, r.stderr, tt.want)
				}
			})
		}
	})
}

// demoDir is the fixture extension directory.
func demoDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "testdata", "extensions", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// outputSchema is a demo tool's resolved outputSchema.
func outputSchema(t *testing.T, tool string) *jsonschema.Resolved {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(demoDir(t), "tools", tool, "tool.meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ OutputSchema *jsonschema.Schema }
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	rs, err := m.OutputSchema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: resolve outputSchema: %v", tool, err)
	}
	return rs
}

func TestSDKDemoExtension(t *testing.T) {
	tests := []struct {
		tool, args string
		wantCode   int
		want       string // stdout (JSON compared as JSON)
		wantErr    string // the error file
		wantLevels []string
		progress   int
	}{
		{tool: "hello", want: `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"Hello from a Boris extension\"}}"}],` +
			`"structuredContent":{"success":true,"result":{"message":"Hello from a Boris extension"}},"isError":false}`},
		{tool: "echo", args: `{"value":"a \"quoted\"\nline ✓ \\"}`,
			want: `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"value\":\"a \\\"quoted\\\"\\nline ✓ \\\\\"}}"}],` +
				`"structuredContent":{"success":true,"result":{"value":"a \"quoted\"\nline ✓ \\"}},"isError":false}`},
		{tool: "echo", args: `{}`, wantCode: 1,
			wantErr: `{"code":-32602,"message":"value is required: send {\"value\":\"some text\"}"}`},
		{tool: "slow", args: `{"steps":3,"delayMs":0}`, progress: 3,
			want: `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"Finished\",\"steps\":\"3\"}}"}],` +
				`"structuredContent":{"success":true,"result":{"message":"Finished","steps":"3"}},"isError":false}`},
		{tool: "slow", args: `{"steps":0}`, wantCode: 1, wantErr: `{"code":-32602,"message":".steps must be >= 1"}`},
		{tool: "logger", args: `{"text":"hi"}`, want: "Sent 5 log messages",
			wantLevels: []string{"debug", "info", "warning", "error", "notice"}},
		{tool: "fail", args: `{"mode":"fail"}`, wantCode: 1,
			wantErr: `{"code":-32603,"message":"The demo failed on purpose","data":{"mode":"fail"}}`},
		{tool: "fail", args: `{"mode":"invalid"}`, wantCode: 1,
			wantErr: `{"code":-32602,"message":"mode=invalid is refused as invalid params"}`},
		{tool: "fail", args: `{"mode":"error"}`, wantLevels: []string{"debug"},
			want: `{"content":[{"type":"text","text":"Nothing called demo exists\nHint: Call fail with mode=ok"}],` +
				`"structuredContent":{"success":false,"error":{"type":"not_found","message":"Nothing called demo exists","hint":"Call fail with mode=ok","data":{"mode":"error"}}},"isError":true}`},
		{tool: "fail", args: `{"mode":"result-error"}`,
			want: `{"content":[{"type":"text","text":"The value was out of range"}],` +
				`"structuredContent":{"success":false,"error":{"type":"validation_error","message":"The value was out of range","min":1,"max":10}},"isError":true}`},
		{tool: "fail", args: `{"mode":"exit"}`, wantCode: 3},
		{tool: "fail", args: `{"mode":"ok"}`,
			want: `{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"mode\":\"ok\"}}"}],` +
				`"structuredContent":{"success":true,"result":{"mode":"ok"}},"isError":false}`},
	}
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		for _, tt := range tests {
			t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
				for _, f := range []string{h.errFile, h.logs, h.progress} {
					os.Remove(f)
				}
				args := tt.args
				if args == "" {
					args = "{}"
				}
				tool := filepath.Join(demoDir(t), "tools", tt.tool, "tool.sh")
				cmd, stdout, stderr := h.start(t, []string{tool}, "MCP_TOOL_NAME="+tt.tool, "MCP_TOOL_ARGS_JSON="+args)
				r := wait(t, cmd, stdout, stderr)
				if r.code != tt.wantCode {
					t.Fatalf("status: got %d, want %d (stderr %q)", r.code, tt.wantCode, r.stderr)
				}
				if json.Valid([]byte(tt.want)) {
					got := decode(t, r.stdout)
					if diff := cmp.Diff(decode(t, tt.want), got); diff != "" {
						t.Errorf("stdout (-want +got):\n%s", diff)
					}
					if sc, ok := got.(map[string]any)["structuredContent"]; ok && got.(map[string]any)["isError"] == false {
						if _, err := os.Stat(filepath.Join(demoDir(t), "tools", tt.tool, "tool.meta.json")); err == nil && tt.tool != "fail" {
							if err := outputSchema(t, tt.tool).Validate(sc); err != nil {
								t.Errorf("structuredContent does not match the outputSchema: %v", err)
							}
						}
					}
				} else if r.stdout != tt.want {
					t.Errorf("stdout: got %q, want %q", r.stdout, tt.want)
				}
				var wantErr any
				if tt.wantErr != "" {
					wantErr = decode(t, tt.wantErr)
				}
				if diff := cmp.Diff(wantErr, h.errorFile(t)); diff != "" {
					t.Errorf("error file (-want +got):\n%s", diff)
				}
				var levels []string
				for _, l := range lines(t, h.logs) {
					levels = append(levels, l.(map[string]any)["level"].(string))
				}
				if diff := cmp.Diff(tt.wantLevels, levels); diff != "" {
					t.Errorf("log levels (-want +got):\n%s", diff)
				}
				if n := len(lines(t, h.progress)); n != tt.progress {
					t.Errorf("progress lines: got %d, want %d", n, tt.progress)
				}
			})
		}
	})
}

// TestSDKClientChannel: the client helpers in both modes, against a host
// played by the script itself: the questions they append (one line each,
// keys numbered in order, a key of the tool's own, the schemas the
// framework's helpers build), the answers they print, and what they do
// without the capability or an answer.
func TestSDKClientChannel(t *testing.T) {
	sdkModes(t, func(t *testing.T, h *sdkHost) {
		in := t.TempDir()
		answers := map[string]string{
			"elicit-1":   `{"action":"accept","content":{"choice":"b"}}`,
			"elicit-2":   `{"action":"accept","content":{"choices":["x"]}}`,
			"who":        `{"action":"decline"}`,
			"sample-1":   `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`,
			"roots-1":    `{"roots":[{"uri":"file:///r"}]}`,
			"refused":    `{"error":{"code":-32021,"message":"no"}}`,
			"multi-part": `{"content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}`,
		}
		for k, v := range answers {
			if err := os.WriteFile(filepath.Join(in, "answer."+k), []byte(v+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		r := h.script(t, `mcp_elicit_choice "Pick" a 'b"q' ; echo
mcp_elicit_titled_multi_choice "Many" "x:Ex" y; echo
MCP_INPUT_KEY=who mcp_elicit_string "Name?" name && echo " answered $?"
mcp_sample_text "Capital?" 50; echo
mcp_client_roots; echo
mcp_input_request refused sampling/createMessage '{}'; mcp_input_response refused || echo " refused $?"
mcp_input_request "../x" roots/list || echo "bad key $?"
MCP_SAMPLING_SUPPORTED=0 mcp_sample "q" || echo " unsupported $?"`,
			"MCP_INPUT_DIR="+in, "MCP_ELICIT_SUPPORTED=1", "MCP_SAMPLING_SUPPORTED=1", "MCP_ROOTS_SUPPORTED=1")
		want := `{"action":"accept","content":{"choice":"b"}}
{"action":"accept","content":{"choices":["x"]}}
{"action":"decline"} answered 0
Paris
{"roots":[{"uri":"file:///r"}]}
{"error":{"code":-32021,"message":"no"}} refused 1
bad key 1
{"error":{"code":-32021,"message":"the client did not declare the sampling capability"}} unsupported 1
`
		if r.stdout != want {
			t.Errorf("stdout:\n%s\nwant:\n%s\n(stderr %q)", r.stdout, want, r.stderr)
		}
		// Every answer was there already: nothing was asked, nothing waited.
		if _, err := os.Stat(filepath.Join(in, "input")); !errors.Is(err, os.ErrNotExist) {
			b, _ := os.ReadFile(filepath.Join(in, "input"))
			t.Errorf("questions written although answered: %s", b)
		}

		// Unanswered: the question line, the wait line, then the timeout.
		fresh := t.TempDir()
		r = h.script(t, `mcp_elicit_choice "Pick" a 'b"q' || echo " status $?"`, "MCP_INPUT_DIR="+fresh, "MCP_ELICIT_SUPPORTED=1", "MCPBASH_ELICITATION_TIMEOUT=1")
		if r.stdout != `{"action":"error","content":null} status 1`+"\n" {
			t.Errorf("unanswered: got %q (stderr %q)", r.stdout, r.stderr)
		}
		got := lines(t, filepath.Join(fresh, "input"))
		wantQ := []any{
			decode(t, `{"ask":"elicit-1","method":"elicitation/create","params":{"message":"Pick","requestedSchema":{"type":"object","properties":{"choice":{"type":"string","enum":["a","b\"q"]}},"required":["choice"]}}}`),
			decode(t, `{"wait":"elicit-1"}`),
		}
		if diff := cmp.Diff(wantQ, got); diff != "" {
			t.Errorf("question file (-want +got):\n%s", diff)
		}
	})
}
