package core

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/gitenv"
)

// Workspaces (SPEC §8): named, git-versioned directories under
// --workspaces-root. The filesystem tools take an optional workspaceId:
// their paths then resolve inside that workspace, and every write is
// committed to the workspace's own repository.

// workspacesRoot is --workspaces-root made absolute against the working
// directory, or "".
func (c *Config) workspacesRoot(workdir string) string {
	if c.WorkspacesRoot == "" {
		return ""
	}
	if filepath.IsAbs(c.WorkspacesRoot) {
		return filepath.Clean(c.WorkspacesRoot)
	}
	return filepath.Join(workdir, c.WorkspacesRoot)
}

// workspaceRules are what --workspaces-root adds to the path policy: the
// root is allowed (when --allow-dir narrows what is), and every
// workspace's .git is denied, so no tool can plant git configuration or
// hooks that the core's commits would obey.
func (c *Config) workspaceRules(workdir string) (allow, deny []string) {
	root := c.workspacesRoot(workdir)
	if root == "" {
		return nil, nil
	}
	if len(c.AllowDirs) > 0 {
		allow = []string{root}
	}
	// Every .git at any depth: no file tool may plant a repository
	// (config, hooks, attributes) whose git Boris would run.
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		deny = append(deny, filepath.Join(real, "**", ".git"))
	}
	return allow, append(deny, filepath.Join(root, "**", ".git"))
}

// openWorkspaces opens --workspaces-root. git runs confined as commands
// are, since a workspace's .git/config is within the commands' reach.
func (b *boris) openWorkspaces(workdir string, environ []string) error {
	root := b.cfg.workspacesRoot(workdir)
	if root == "" {
		return nil
	}
	gitPath, err := exec.LookPath("git")
	if envLookup(environ, "PATH") != "" {
		gitPath, err = gitenv.Look(environ) // the lookup checkpoints use
	}
	if err != nil {
		return usage("--workspaces-root needs the git binary, which is not on PATH")
	}
	var start func(*exec.Cmd) error
	var done func(int)
	if b.reaper != nil {
		start, done = b.reaper.Start, b.reaper.Done
	}
	run := workspace.ExecRunner(gitPath, environ, b.sandbox.Wrap, start, done)
	if b.workspaces.Root, err = workspace.Open(root, run); err != nil {
		return usage("invalid value %q for --workspaces-root: %v", b.cfg.WorkspacesRoot, err)
	}
	return nil
}

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

// workspaceTools are the workspace tools, registered with --workspaces-root
// beside the filesystem tools, the ones that take workspaceId (validate
// refuses --workspaces-root with --toolset boris). --read-only keeps only
// the reading ones.
func (b *boris) workspaceTools() []toolkit.Tool {
	if b.cfg.WorkspacesRoot == "" || b.cfg.Toolset == "boris" {
		return nil
	}
	return toolkit.Set("workspaces",
		toolkit.New(toolkit.WithOutput[workspaceListResult](workspaceListTool), b.workspaceList),
		toolkit.New(toolkit.WithOutput[commitHistoryResult](commitHistoryTool), b.commitHistory),
		toolkit.New(toolkit.WithOutput[workspaceCreateResult](workspaceCreateTool), b.workspaceCreate).Writing(),
	)
}

func (b *boris) workspaceCreate(ctx context.Context, _ *mcp.CallToolRequest, p workspaceCreateParams) (*mcp.CallToolResult, error) {
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

func (b *boris) workspaceList(_ context.Context, _ *mcp.CallToolRequest, _ workspaceListParams) (*mcp.CallToolResult, error) {
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

func (b *boris) commitHistory(ctx context.Context, _ *mcp.CallToolRequest, p commitHistoryParams) (*mcp.CallToolResult, error) {
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
