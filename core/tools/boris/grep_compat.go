package boris

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit"
)

// grepCompatParams are grep's parameters as Claude Code spells them
// (docs/reference/tools.md#the-anthropic-compatible-editor), registered with --anthropic-compat. They map one to one onto
// grepParams; the search itself is the same code.
type grepCompatParams struct {
	Pattern         string `json:"pattern" jsonschema:"regular expression to search for, in RE2 syntax (no lookaround or backreferences)"`
	Path            string `json:"path,omitempty" jsonschema:"file or directory to search; default the working directory"`
	Glob            string `json:"glob,omitempty" jsonschema:"only search files matching this glob, e.g. *.js or *.{ts,tsx}"`
	Type            string `json:"type,omitempty" jsonschema:"only search files of this type: go, js, ts, py, rust, java, c, cpp, md, json, yaml, sh and more"`
	OutputMode      string `json:"output_mode,omitempty" jsonschema:"files_with_matches (default), content or count"`
	CaseInsensitive bool   `json:"-i,omitempty" jsonschema:"case insensitive search"`
	LineNumbers     *bool  `json:"-n,omitempty" jsonschema:"content mode: show line numbers (default true)"`
	After           int    `json:"-A,omitempty" jsonschema:"content mode: lines to show after each match"`
	Before          int    `json:"-B,omitempty" jsonschema:"content mode: lines to show before each match"`
	Context         int    `json:"-C,omitempty" jsonschema:"content mode: lines to show before and after each match"`
	Multiline       bool   `json:"multiline,omitempty" jsonschema:"let matches span lines; . matches newlines"`
	HeadLimit       *int   `json:"head_limit,omitempty" jsonschema:"show at most this many entries; default 250, 0 for all"`
	Offset          int    `json:"offset,omitempty" jsonschema:"skip this many entries first, to page through results"`
}

// grepParams maps the Claude Code spellings onto grep's own.
func (p grepCompatParams) grepParams() grepParams {
	return grepParams{
		Pattern: p.Pattern, Path: p.Path, Include: p.Glob, Type: p.Type, OutputMode: p.OutputMode,
		CaseInsensitive: p.CaseInsensitive, Multiline: p.Multiline,
		ContextBefore: p.Before, ContextAfter: p.After, Context: p.Context,
		LineNumbers: p.LineNumbers, HeadLimit: p.HeadLimit, Offset: p.Offset,
	}
}

// grepCompat is grep with Claude Code's parameter names.
func (b *tools) grepCompat(ctx context.Context, _ *mcp.CallToolRequest, p grepCompatParams) (*mcp.CallToolResult, error) {
	return b.runGrep(ctx, p.grepParams())
}

// grepSpec registers grep with the parameter spelling the mode asks for.
func (b *tools) grepEntry() toolkit.Tool {
	if b.opt.AnthropicCompat.Enabled() {
		return toolkit.New(grepTool, b.grepCompat)
	}
	return toolkit.New(grepTool, b.grep)
}
