// Package workspaces is the workspace toolset (docs/reference/core.md#workspaces): named,
// git-versioned directories under --workspaces-root, created, listed and
// read back by these tools, written by the filesystem toolset's tools
// with workspaceId (workspace.Paths commits their writes). It imports the
// shared kit, never another toolset or the core.
package workspaces

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/workspace"
)

type workspaceCreateParams struct {
	Name string `json:"name" jsonschema:"the workspace's name; its id is a slug of it (lower case, dashes), made unique"`
}

type workspaceCreateResult struct {
	WorkspaceID string `json:"workspaceId" jsonschema:"the workspace's id, for the workspaceId parameter of the filesystem tools"`
	Path        string `json:"path" jsonschema:"the workspace's absolute path"`
}

type workspaceListParams struct{}

type workspaceListResult struct {
	Workspaces []workspaceCreateResult `json:"workspaces" jsonschema:"every workspace, by id"`
}

type commitHistoryParams struct {
	WorkspaceID string `json:"workspaceId" jsonschema:"the workspace whose history to read"`
	Path        string `json:"path,omitempty" jsonschema:"only commits that touched this path, relative to the workspace"`
	Limit       int    `json:"limit,omitempty" jsonschema:"most commits to return, newest first (default 20, at most 1000)"`
}

type commitHistoryResult struct {
	Log []workspace.Commit `json:"log" jsonschema:"commits, newest first"`
}

var workspaceCreateTool = &mcp.Tool{
	Name: "workspace_create",
	Description: "Create a workspace: a directory under the workspaces root, initialised as a git repository. " +
		"Pass the returned workspaceId to the filesystem tools to work inside it; every write made through them is committed.",
	Annotations: &mcp.ToolAnnotations{Title: "Create workspace", DestructiveHint: toolkit.Ptr(false), OpenWorldHint: toolkit.Ptr(false)},
}

var workspaceListTool = &mcp.Tool{
	Name:        "workspace_list",
	Description: "List the workspaces: id and absolute path of each.",
	Annotations: &mcp.ToolAnnotations{Title: "List workspaces", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

var commitHistoryTool = &mcp.Tool{
	Name:        "get_commit_history",
	Description: "Read a workspace's git history, newest first: hash, author, date and message of each commit, optionally only those touching one path.",
	Annotations: &mcp.ToolAnnotations{Title: "Workspace commit history", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// ID names the workspace toolset.
const ID toolkit.ID = "workspaces"

// Tools are the workspace tools: workspace_create, workspace_list and
// get_commit_history, over ws. --read-only keeps only the reading ones.
func Tools(ws *workspace.Paths) []toolkit.Tool {
	b := tools{ws}
	return toolkit.Set(ID,
		toolkit.NewFrom(workspaceListTool.Name, toolkit.OutputDef[workspaceListResult](workspaceListTool), b.workspaceList),
		toolkit.NewFrom(commitHistoryTool.Name, toolkit.OutputDef[commitHistoryResult](commitHistoryTool), b.commitHistory),
		toolkit.NewFrom(workspaceCreateTool.Name, toolkit.OutputDef[workspaceCreateResult](workspaceCreateTool), b.workspaceCreate).Writing(),
	)
}

// tools are the workspace tools over the workspaces' paths.
type tools struct{ workspaces *workspace.Paths }

func (b tools) workspaceCreate(ctx context.Context, _ *mcp.CallToolRequest, p workspaceCreateParams) (*mcp.CallToolResult, error) {
	if strings.TrimSpace(p.Name) == "" {
		return nil, toolkit.Fail(toolkit.InvalidInput, "name is required: the workspace's id is made from it")
	}
	ws, err := b.workspaces.Root.Create(ctx, p.Name)
	if err != nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "%v", err)
	}
	out := workspaceCreateResult{WorkspaceID: ws.ID, Path: ws.Dir}
	return toolkit.Structured(fmt.Sprintf("Created workspace %s at %s", ws.ID, ws.Dir), out), nil
}

func (b tools) workspaceList(_ context.Context, _ *mcp.CallToolRequest, _ workspaceListParams) (*mcp.CallToolResult, error) {
	list, err := b.workspaces.Root.List()
	if err != nil {
		return nil, toolkit.Fail(toolkit.IOError, "%v", err)
	}
	out := workspaceListResult{Workspaces: []workspaceCreateResult{}}
	var sb strings.Builder
	for _, ws := range list {
		out.Workspaces = append(out.Workspaces, workspaceCreateResult{WorkspaceID: ws.ID, Path: ws.Dir})
		fmt.Fprintf(&sb, "%s\t%s\n", ws.ID, ws.Dir)
	}
	if len(list) == 0 {
		sb.WriteString("No workspaces yet (workspace_create makes one).")
	}
	return toolkit.Structured(strings.TrimSuffix(sb.String(), "\n"), out), nil
}

func (b tools) commitHistory(ctx context.Context, _ *mcp.CallToolRequest, p commitHistoryParams) (*mcp.CallToolResult, error) {
	if p.Limit < 0 || p.Limit > 1000 {
		return nil, toolkit.Fail(toolkit.InvalidInput, "limit %d: want 1 to 1000 (0 or none means 20)", p.Limit)
	}
	if p.Limit == 0 {
		p.Limit = 20
	}
	ws, err := b.workspaces.Get(p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	rel := ""
	if p.Path != "" {
		abs, _, err := b.workspaces.Resolve(p.WorkspaceID, p.Path)
		if err != nil {
			return nil, err
		}
		r, _ := filepath.Rel(ws.Dir, abs)
		rel = filepath.ToSlash(r)
	}
	log, err := b.workspaces.Root.History(ctx, ws, rel, p.Limit)
	if err != nil {
		return nil, toolkit.Fail(toolkit.IOError, "%v", err)
	}
	out := commitHistoryResult{Log: log}
	if out.Log == nil {
		out.Log = []workspace.Commit{}
	}
	var sb strings.Builder
	for _, c := range log {
		fmt.Fprintf(&sb, "%s %s %s %s\n", c.Commit, c.Date, c.Author, c.Message)
	}
	if len(log) == 0 {
		sb.WriteString("No commits yet.")
	}
	return toolkit.Structured(strings.TrimSuffix(sb.String(), "\n"), out), nil
}
