package toolkit

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDescribeInvalid: a schema failure names the argument and what to
// send, never a schema location ("validating root: ...").
func TestDescribeInvalid(t *testing.T) {
	type edit struct {
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	type params struct {
		Path  string `json:"path"`
		Mode  string `json:"mode,omitempty" jsonschema:"mode"`
		Edits []edit `json:"edits,omitempty"`
	}
	schema := MustSchema[params]("t")
	schema.Properties["mode"].Enum = []any{"a", "b"}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"path":"x","bogus":1}`, `unknown argument "bogus" (known: edits, mode, path)`},
		{`{"path":"x","b1":1,"b2":2}`, `unknown arguments "b1", "b2" (known: edits, mode, path)`},
		{`{}`, `missing required argument "path"`},
		{`{"path":3}`, `path: got 3 (integer), want string`},
		{`{"path":"x","mode":"c"}`, `mode: got c, want one of [a b]`},
		{`{"path":"x","edits":[{"oldText":"a"}]}`, `missing required argument "newText" in edits[]`},
		{`{"path":"x","edits":[{"oldText":"a","newText":"b","x":1}]}`, `unknown argument "x" in edits[] (known: newText, oldText)`},
	}
	for _, tt := range tests {
		var instance any
		if err := json.Unmarshal([]byte(tt.args), &instance); err != nil {
			t.Fatal(err)
		}
		err := resolved.Validate(instance)
		if err == nil {
			t.Fatalf("%s: valid, want a failure", tt.args)
		}
		got := describeInvalid(err, schema)
		if got != tt.want || strings.Contains(got, "validating") {
			t.Errorf("%s: got %q, want %q", tt.args, got, tt.want)
		}
	}
}
