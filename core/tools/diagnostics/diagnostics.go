// Package diagnostics is the diagnostics toolset: the diagnostics tool
// lists the problems the session's language servers (package lsp) report
// for a file, or for every file they know. The problems each edit
// introduced or fixed are added to the edit's own result by the
// composition root, not here. It imports the shared kit, never another
// toolset or the core.
package diagnostics

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// ID names the diagnostics toolset.
const ID toolkit.ID = "diagnostics"

// Source gives the current problems of a file (path absolute), or with
// path "" of every file the running servers know, waiting up to wait for
// the servers to answer.
type Source interface {
	Current(path string, wait time.Duration) (string, error)
}

// Deps is what the diagnostics tool needs: the path policy and working
// directory to resolve its path, and the servers.
type Deps interface {
	toolkit.Files
	Diagnostics() Source
}

// queryWait is how long the tool waits for servers to answer: longer
// than an edit's result waits, since the agent asked for the answer.
const queryWait = 10 * time.Second

type params struct {
	Path string `json:"path,omitempty" jsonschema:"a Go, Python or TypeScript/JavaScript file to check, relative paths against the working directory; omitted: every file the language servers know, brought up to date with the disk"`
}

var tool = &mcp.Tool{
	Name: "diagnostics",
	Description: "List the current problems (errors, warnings) a language server reports: gopls for Go, pyright for Python, typescript-language-server for TypeScript/JavaScript. " +
		"Edits already report the problems they introduce or fix; use this after a bash command changed files, or to see every problem of a file.",
	Annotations: &mcp.ToolAnnotations{Title: "Language server diagnostics", ReadOnlyHint: true, OpenWorldHint: toolkit.Ptr(false)},
}

// Tools is the diagnostics tool.
func Tools(d Deps) []toolkit.Tool {
	return toolkit.Set(ID, toolkit.New(tool, func(ctx context.Context, _ *mcp.CallToolRequest, p params) (*mcp.CallToolResult, error) {
		return run(d, p)
	}))
}

// run resolves the path, if any, and lists its problems.
func run(d Deps, p params) (*mcp.CallToolResult, error) {
	abs := ""
	if p.Path != "" {
		var err error
		if abs, err = d.Policy().Resolve(d.Dir(), p.Path); err != nil {
			return nil, err
		}
	}
	text, err := d.Diagnostics().Current(abs, queryWait)
	if err != nil {
		return nil, toolkit.Fail(toolkit.InvalidInput, "%v", err)
	}
	return toolkit.TextResult(text), nil
}
