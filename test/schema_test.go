package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// typeLists returns where schema (decoded JSON) holds a "type" that is a
// list, such as ["null", "boolean"].
func typeLists(v any, at string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["type"].([]any); ok {
			out = append(out, fmt.Sprintf("%s: %v", at, v["type"]))
		}
		for k, sub := range v {
			out = append(out, typeLists(sub, at+"."+k)...)
		}
	case []any:
		for i, sub := range v {
			out = append(out, typeLists(sub, fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	return out
}

// TestSchemasPlainOptional: no tool of any toolset advertises a type list
// (["null", X]), which strict schema dialects refuse; an optional
// parameter is a property left out of "required". A client that sends
// null for one is still served.
func TestSchemasPlainOptional(t *testing.T) {
	dir := realTempDir(t)
	for _, args := range [][]string{
		{"--toolset", "all"},
		{"--toolset", "all", "--anthropic-compat"},
		{"--toolset", "all", "--workspaces-root", filepath.Join(dir, "ws")},
	} {
		t.Run(fmt.Sprint(args), func(t *testing.T) {
			c := startCore(t, append([]string{"--workdir", dir, "--checkpoints", "off", "--tasks-db", filepath.Join(dir, "tasks.db")}, args...)...)
			res, err := c.session.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				for what, s := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
					var v any
					raw, _ := json.Marshal(s)
					if err := json.Unmarshal(raw, &v); err != nil {
						t.Fatal(err)
					}
					for _, at := range typeLists(v, tool.Name+" "+what) {
						t.Errorf("type list at %s, want a plain type", at)
					}
				}
			}
		})
	}
	t.Run("null still accepted", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c := startCore(t, "--workdir", dir, "--checkpoints", "off")
		res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "needle", "head_limit": nil, "line_numbers": nil}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Errorf("grep with null optional arguments: %v, want it served", res.Content)
		}
	})
}
