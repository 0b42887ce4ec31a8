// Package filesystem is the filesystem toolset (docs/reference/core.md#workspaces): the tools of
// @modelcontextprotocol/server-filesystem (version 2026.8.31), with the
// same names, input and output schemas, annotations and result text, on
// Boris's scoping. docs/workspaces.md#replacing-server-filesystem lists every
// deliberate difference. It imports the shared kit (toolkit, scope,
// checkpoint, workspace, search), never another toolset or the core.
package filesystem

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/checkpoint"
	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/core/workspace"
	"github.com/mjkoo/boris/internal/flagenv"
)

// fsArgs is embedded in every filesystem tool's parameters: the optional
// workspace, and a schema loosened the way server-filesystem's (zod)
// schemas are, which ignore arguments they do not know.
type fsArgs struct {
	WorkspaceID string `json:"workspaceId,omitempty" jsonschema:"a workspace id from workspace_create; paths then resolve inside that workspace and every write is committed to it"`
}

func (fsArgs) TuneSchema(s *jsonschema.Schema) { loosen(s) }

// loosen lets every object in s hold properties it does not name.
func loosen(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		loosen(p)
	}
	loosen(s.Items)
}

// fsTool is one tool of the toolset as server-filesystem declares it.
type fsTool struct {
	name, title, description string
	input                    string // the input schema's "properties", JSON
	required                 []string
	output                   string // the output schema, JSON; "" = {content: string}
	readOnly                 bool
	destructive, idempotent  *bool // nil = not stated (read-only tools)
}

// fsContentOutput is the output schema of every tool but read_media_file.
const fsContentOutput = `{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false}`

// workspaceIDSchema is the property the tools advertise with --workspaces-root.
const workspaceIDSchema = `{"type":"string","description":"Optional workspace id (from workspace_create): paths resolve inside that workspace and every write is committed to its git repository."}`

// def is t.mcpTool(workspaces), made when the tool is registered.
func (t fsTool) def(workspaces bool) toolkit.Def {
	return toolkit.Lazy(func() *mcp.Tool { return t.mcpTool(workspaces) })
}

// mcpTool renders t as the tool Boris advertises: server-filesystem's
// schemas, plus workspaceId when workspaces are enabled.
func (t fsTool) mcpTool(workspaces bool) *mcp.Tool {
	props := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(t.input), &props); err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", t.name, err))
	}
	if workspaces {
		props["workspaceId"] = json.RawMessage(workspaceIDSchema)
	}
	in := map[string]any{"type": "object", "properties": props, "$schema": "http://json-schema.org/draft-07/schema#"}
	if len(t.required) > 0 {
		in["required"] = t.required
	}
	out := t.output
	if out == "" {
		out = fsContentOutput
	}
	ann := &mcp.ToolAnnotations{ReadOnlyHint: t.readOnly, OpenWorldHint: toolkit.Ptr(false), DestructiveHint: t.destructive, IdempotentHint: t.idempotent != nil && *t.idempotent}
	return &mcp.Tool{Name: t.name, Title: t.title, Description: t.description, InputSchema: in, OutputSchema: json.RawMessage(out), Annotations: ann}
}

// Deps is what the filesystem tools need: the files they act on, the
// checkpoint recorder (nil when off) and the workspaces' paths.
type Deps interface {
	toolkit.Files
	Recorder() *checkpoint.Recorder
	Workspaces() *workspace.Paths
}

// Options are the configuration the tools follow.
type Options struct {
	MaxFileSize flagenv.Size // --max-file-size
	Workspaces  bool         // --workspaces-root is set: the tools take workspaceId
	// Seen is how the session last saw each file, shared with the other
	// file tools; nil remembers nothing.
	Seen *seen.Tracker
}

// tools are the filesystem tools over their dependencies.
type tools struct {
	d   Deps
	opt Options
}

// ID names the toolset: --toolset filesystem selects it (and all).
const ID toolkit.ID = "filesystem"

// Tools are the filesystem toolset's tools (--toolset filesystem or all).
// --read-only keeps only the reading ones.
func Tools(d Deps, opt Options) []toolkit.Tool {
	b, ws := &tools{d: d, opt: opt}, opt.Workspaces
	return toolkit.Set(ID,
		newTool(fsReadFileTool, ws, b.fsReadTextFile),
		newTool(fsReadTextFileTool, ws, b.fsReadTextFile),
		newTool(fsReadMediaFileTool, ws, b.fsReadMediaFile),
		newTool(fsReadMultipleFilesTool, ws, b.fsReadMultipleFiles),
		newTool(fsListDirectoryTool, ws, b.fsListDirectory),
		newTool(fsListDirectoryWithSizesTool, ws, b.fsListDirectoryWithSizes),
		newTool(fsDirectoryTreeTool, ws, b.fsDirectoryTree),
		newTool(fsSearchFilesTool, ws, b.fsSearchFiles),
		newTool(fsGetFileInfoTool, ws, b.fsGetFileInfo),
		newTool(fsListAllowedTool, ws, b.fsListAllowed),
		newTool(fsWriteFileTool, ws, b.fsWriteFile),
		newTool(fsEditFileTool, ws, b.fsEditFile),
		newTool(fsCreateDirectoryTool, ws, b.fsCreateDirectory),
		newTool(fsMoveFileTool, ws, b.fsMoveFile),
	)
}

// newTool builds t's tool with the handler h: one that writes unless t
// is read-only, so its annotation and what --read-only leaves out come
// from the one field.
func newTool[In any](t fsTool, workspaces bool, h toolkit.Handler[In]) toolkit.Tool {
	tool := toolkit.NewFrom(t.name, t.def(workspaces), h)
	if !t.readOnly {
		tool = tool.Writing()
	}
	return tool
}

// fsResult is a successful result as server-filesystem gives it: the text,
// and {content: text} as structuredContent, bytes that are not UTF-8
// decoded as Node decodes them (decodeString). Text past toolkit.MaxResultText is cut
// with a note in both, so the result stays bounded.
func fsResult(text string) *mcp.CallToolResult {
	text = decodeString(text) // a file name that is not UTF-8, as Node decodes it
	if len(text) > toolkit.MaxResultText {
		cut := toolkit.MaxResultText
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n[Result cut: it held %d bytes, more than the %d a result may hold. Ask for less: head or tail, a narrower path or pattern.]\n", len(text), toolkit.MaxResultText)
	}
	return toolkit.Structured(text, map[string]any{"content": text})
}
