package core

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestToolsetsSelected: --toolset selects the toolsets its value names,
// every tool carries the ID of the toolset that wired it in, and a
// configuration's leavesOut leaves out what it says.
func TestToolsetsSelected(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
		want []toolkit.ID
	}{
		{"boris", Config{Toolset: "boris", Checkpoints: "on", Diagnostics: "auto"}, []toolkit.ID{"boris", "checkpoints", "diagnostics", "tracking"}},
		{"boris, checkpoints and diagnostics off", Config{Toolset: "boris", Checkpoints: "off", Diagnostics: "off"}, []toolkit.ID{"boris", "tracking"}},
		{"filesystem", Config{Toolset: "filesystem", Checkpoints: "on", Diagnostics: "auto"}, []toolkit.ID{"filesystem"}},
		{"filesystem with workspaces", Config{Toolset: "filesystem", WorkspacesRoot: "w"}, []toolkit.ID{"filesystem", "workspaces"}},
		{"all", Config{Toolset: "all", Checkpoints: "on", Diagnostics: "auto", WorkspacesRoot: "w"}, []toolkit.ID{"filesystem", "workspaces", "boris", "checkpoints", "diagnostics", "tracking"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &boris{cfg: &tt.cfg}
			var got []toolkit.ID
			for _, ts := range b.toolsets() {
				if !b.cfg.selects(ts.under) {
					continue
				}
				tools := ts.tools()
				for _, tool := range tools {
					if tool.Toolset != ts.id {
						t.Errorf("tool %s is wired in as toolset %s but carries %q", tool.Name, ts.id, tool.Toolset)
					}
				}
				if len(tools) > 0 {
					got = append(got, ts.id)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("toolsets offered: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWritingToolsAreNotAdvertisedReadOnly: whether a tool writes and
// the readOnlyHint it advertises never disagree: a tool --read-only
// keeps (Writes false) may say it is read-only, one it leaves out never.
func TestWritingToolsAreNotAdvertisedReadOnly(t *testing.T) {
	cfg := &Config{Toolset: "all", Checkpoints: "on", Diagnostics: "auto", WorkspacesRoot: "w"}
	offered := (&boris{cfg: cfg}).offered()
	s := mcp.NewServer(&mcp.Implementation{Name: "test"}, nil)
	for _, tool := range offered {
		tool.Register(s, func(ctx context.Context, _ string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
			return run(ctx)
		})
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatalf("connect server: %v", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatalf("connect client: %v", err)
	}
	defer cs.Close()
	listed, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	readOnly := map[string]bool{}
	for _, tool := range listed.Tools {
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	}
	if len(readOnly) != len(offered) {
		t.Fatalf("listed %d tools, offered %d", len(readOnly), len(offered))
	}
	for _, tool := range offered {
		if tool.Writes && readOnly[tool.Name] {
			t.Errorf("tool %s (toolset %s) writes but is advertised read-only", tool.Name, tool.Toolset)
		}
	}
	for _, name := range []string{"read_text_file", "list_directory", "write_file", "edit_file"} { // the filesystem tools state it for each
		i := slices.IndexFunc(offered, func(tool toolkit.Tool) bool { return tool.Name == name })
		if i < 0 {
			t.Fatalf("tool %s not offered", name)
		}
		if offered[i].Writes == readOnly[name] {
			t.Errorf("tool %s: writes %v and advertised read-only %v", name, offered[i].Writes, readOnly[name])
		}
	}
}
