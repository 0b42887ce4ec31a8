package filesystem

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// TestToolDefinitions: the toolset lists server-filesystem's fourteen
// tools with their annotations and output schemas, takes workspaceId only
// when workspaces are on, and, as server-filesystem, accepts arguments it
// does not know.
func TestToolDefinitions(t *testing.T) {
	readOnly := []string{"directory_tree", "get_file_info", "list_allowed_directories", "list_directory", "list_directory_with_sizes",
		"read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files"}
	writing := []string{"create_directory", "edit_file", "move_file", "write_file"}
	for _, workspaces := range []bool{false, true} {
		d := tooltest.New(t)
		cs := tooltest.Connect(t, Tools(d, Options{MaxFileSize: 1 << 20, Workspaces: workspaces}))
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ro, rw []string
		for _, tl := range res.Tools {
			if tl.Annotations.ReadOnlyHint {
				ro = append(ro, tl.Name)
			} else {
				rw = append(rw, tl.Name)
			}
			if tl.OutputSchema == nil || tl.Annotations.OpenWorldHint == nil || *tl.Annotations.OpenWorldHint {
				t.Errorf("%s: output schema %v, openWorldHint %v; want a schema and false", tl.Name, tl.OutputSchema, tl.Annotations.OpenWorldHint)
			}
			if got := takes(t, tl, "workspaceId"); got != workspaces {
				t.Errorf("%s with workspaces %v: takes workspaceId %v", tl.Name, workspaces, got)
			}
		}
		slices.Sort(ro)
		slices.Sort(rw)
		if diff := cmp.Diff(readOnly, ro); diff != "" {
			t.Errorf("read-only tools (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(writing, rw); diff != "" {
			t.Errorf("writing tools (-want +got):\n%s", diff)
		}
	}
	d := tooltest.New(t)
	tooltest.WriteFiles(t, d.Dir(), abc)
	res := tooltest.Call(t, tooltest.Connect(t, Tools(d, Options{MaxFileSize: 1 << 20})), "read_text_file",
		map[string]any{"path": "a.txt", "encoding": "utf-8", "options": map[string]any{"x": 1}})
	if res.IsError || tooltest.Text(res) != abc["a.txt"] {
		t.Errorf("read_text_file with arguments it does not know: got isError=%v %q, want the file", res.IsError, tooltest.Text(res))
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"content":"one\ntwo\nthree\n"}` {
		t.Errorf("structuredContent %s, want the text under content", sc)
	}
}

// takes reports whether tl's input schema has the property name.
func takes(t *testing.T, tl *mcp.Tool, name string) bool {
	raw, err := json.Marshal(tl.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	_, ok := schema.Properties[name]
	return ok
}
