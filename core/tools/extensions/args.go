package extensions

import (
	"math"
	"strconv"
	"strings"
)

// Most tools read their arguments one top-level key at a time
// (`mcp_args_get '.name'`, `.count // 10`). Done with jq, as the
// framework documents it, each read starts jq: several milliseconds, more
// than the rest of a small tool's call. So the core also passes each
// argument the SDK can answer for without jq, in a variable of its own,
// and the SDK's mcp_args_get reads that instead when the filter is a plain
// top-level key (with an optional `// literal`). These variables are the
// SDK's contract with the core, not the tools': the documented one stays
// MCP_TOOL_ARGS_JSON.

// extArgsMarker, when set, says that every argument whose name is a shell
// identifier has an extArgPrefix variable. Its value is the byte length of
// MCP_TOOL_ARGS_JSON they were made from, so that a tool (or one it runs)
// that sets MCP_TOOL_ARGS_JSON itself is not answered from stale ones.
const extArgsMarker = "MCP_SDK_ARGS"

// extArgPrefix names an argument's variable: MCP_SDK_ARG_<name>.
const extArgPrefix = "MCP_SDK_ARG_"

// extArgMaxName bounds the argument names given a variable.
const extArgMaxName = 64

// extArgVars returns the variables for args, whose JSON (as the tool gets it
// in MCP_TOOL_ARGS_JSON) is argsJSON. Each value is a tag and a payload:
// "s" and the string itself, which is what `jq -r` prints for it; "j" and
// the JSON that jq prints for null, true, false or a small integer; or "x"
// for any other value, which the SDK leaves to jq.
func extArgVars(args map[string]any, argsJSON []byte) []string {
	vars := make([]string, 0, len(args)+1)
	for k, v := range args {
		if !extArgName(k) {
			continue // no filter the SDK answers names it
		}
		vars = append(vars, extArgPrefix+k+"="+extArgValue(v))
	}
	return append(vars, extArgsMarker+"="+strconv.Itoa(len(argsJSON)))
}

// extArgName reports whether name is a shell identifier, as both a variable
// name and jq's `.name` need, of a sensible length.
func extArgName(name string) bool {
	if name == "" || len(name) > extArgMaxName {
		return false
	}
	for i, c := range name {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// extArgMaxInt bounds the integers passed as "j": below it every jq prints
// an integer as Go's encoder wrote it, plain digits.
const extArgMaxInt = 1e15

// extArgValue is v's tagged value (see extArgVars). v is what
// encoding/json decodes into an any.
func extArgValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "jnull"
	case bool:
		return "j" + strconv.FormatBool(v)
	case string:
		if strings.IndexByte(v, 0) >= 0 {
			return "x" // no NUL in an environment variable
		}
		return "s" + v
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < extArgMaxInt && !(v == 0 && math.Signbit(v)) {
			return "j" + strconv.FormatInt(int64(v), 10)
		}
	}
	return "x"
}
