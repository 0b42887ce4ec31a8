package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"unicode/utf8"
)

// nameMethods are the methods whose params.name (or params.uri) a request
// mirrors in Mcp-Name.
var nameMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// CheckHeaders validates the standard request headers against the body:
// MCP-Protocol-Version against _meta, Mcp-Method, and Mcp-Name where the
// method has a name.
func CheckHeaders(hdr http.Header, method string, p *Request2026) error {
	for name, vals := range hdr {
		if !strings.HasPrefix(name, "Mcp-") {
			continue
		}
		for _, v := range vals {
			if !headerSafe(v) {
				return fmt.Errorf("%s header value holds characters a header may not carry (use the =?base64?...?= form)", name)
			}
		}
	}
	if hv, mv := hdr.Get("MCP-Protocol-Version"), p.Version(); hv != mv {
		return fmt.Errorf("MCP-Protocol-Version header value '%s' does not match body value '%s'", hv, mv)
	}
	switch hm := hdr.Get("Mcp-Method"); {
	case hm == "":
		return errors.New("missing required Mcp-Method header")
	case hm != method:
		return fmt.Errorf("Mcp-Method header value '%s' does not match body value '%s'", hm, method)
	}
	field, named := nameMethods[method]
	if !named {
		return nil
	}
	raw := hdr.Get("Mcp-Name")
	if raw == "" {
		return fmt.Errorf("missing required Mcp-Name header for method %s", method)
	}
	name, err := DecodeHeader(raw)
	if err != nil {
		return fmt.Errorf("Mcp-Name: %v", err)
	}
	body := p.Params[field]
	if StringValue(body) == "" {
		return fmt.Errorf("Mcp-Name header value '%s' does not match the body, which has no params.%s string", name, field)
	}
	if name != StringValue(body) {
		return fmt.Errorf("Mcp-Name header value '%s' does not match body value '%s'", name, StringValue(body))
	}
	return nil
}

// headerSafe reports whether v is a plain header value: visible ASCII,
// space and tab only.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return false
		}
	}
	return true
}

// DecodeHeader decodes a mirrored header value: the =?base64?...?= form
// carries any UTF-8 value, anything else is the value itself.
func DecodeHeader(v string) (string, error) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, nil
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, nil
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", fmt.Errorf("value '%s' is not valid base64 of UTF-8 text", v)
	}
	return string(b), nil
}

// ParamHeader is one argument mirrored into a header.
type ParamHeader struct {
	Name string   // the header is Mcp-Param-{name}
	Path []string // properties chain to the argument
}

// SchemaHeaders collects x-mcp-header annotations reachable from a schema
// through "properties" alone, as the revision allows them.
func SchemaHeaders(schema json.RawMessage, path []string) []ParamHeader {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []ParamHeader
	for name, prop := range s.Properties {
		p := append(append([]string(nil), path...), name)
		var ann struct {
			Header string `json:"x-mcp-header"`
		}
		if json.Unmarshal(prop, &ann) == nil && ann.Header != "" {
			out = append(out, ParamHeader{Name: ann.Header, Path: p})
		}
		out = append(out, SchemaHeaders(prop, p)...)
	}
	return out
}

// Argument returns the value at path in a tool's arguments; null counts
// as absent.
func Argument(args json.RawMessage, path []string) (json.RawMessage, bool) {
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(args, &obj) != nil {
			return nil, false
		}
		args = obj[key]
	}
	if len(args) == 0 || string(args) == "null" {
		return nil, false
	}
	return args, true
}

// SameValue compares a header's decoded value with a JSON primitive:
// strings as text, numbers as numbers, booleans as true/false.
func SameValue(header string, val json.RawMessage) bool {
	switch val[0] {
	case '"':
		var s string
		return json.Unmarshal(val, &s) == nil && s == header
	case 't', 'f':
		return string(val) == header
	case '{', '[':
		return false
	}
	a, ok1 := new(big.Float).SetString(string(bytes.TrimSpace(val)))
	b, ok2 := new(big.Float).SetString(header)
	return ok1 && ok2 && a.Cmp(b) == 0
}
