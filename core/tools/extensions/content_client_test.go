package extensions

//lint:file-ignore SA1019 logging is deprecated by the 2026-07-28 revision but the extensions still announce it for their tools' logs

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// content is an extension directory of prompts (one asking its client
// who it is for), a resource template whose names a completion script
// completes, and a file no resource lists.
var content = map[string]string{
	"prompts/greet.meta.json":   `{"name":"greet","description":"greets","arguments":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"tone":{"type":"string","enum":["friendly","formal","playful"]}}}}`,
	"prompts/greet.txt":         "Hello, ${name}! Be {{tone}}.\n",
	"prompts/brief.meta.json":   `{"name":"brief","arguments":{"type":"object","properties":{}},"inputs":{"reader":{"method":"elicitation/create","params":{"message":"Who reads it?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}`,
	"prompts/brief.txt":         "For {{reader.content.name}}.\n",
	"resources/notes.meta.json": `{"name":"notes","uriTemplate":"file://./resources/notes/{file}","mimeType":"text/markdown"}`,
	"resources/notes/todo.md":   "- test\n",
	"resources/notes/tips.md":   "- rest\n",
	"resources/unlisted.txt":    "not listed\n",
	"server.d/register.json":    `{"version":1,"completions":[{"name":"notes","path":"completions/notes.sh","timeoutSecs":5}]}`,
	"completions/notes.sh": "#!/bin/bash\n[[ $MCP_COMPLETION_ARGS_JSON =~ \\\"query\\\":\\\"([^\\\"]*)\\\" ]] && q=${BASH_REMATCH[1]}\n" +
		"case $q in fail) echo broken >&2; exit 2 ;; junk) echo junk ;; *) out=; for f in \"$MCPBASH_PROJECT_ROOT\"/resources/notes/\"$q\"*; do [ -e \"$f\" ] && out=\"$out${out:+,}\\\"${f##*/}\\\"\"; done; echo \"{\\\"suggestions\\\":[$out],\\\"hasMore\\\":false}\" ;; esac\n",
}

// TestPrompts: prompts/get substitutes the arguments, refuses a missing
// required one as invalid params, and fills a prompt's inputs from its
// client: asked on a 2025 session, through a round on 2026-07-28, left
// empty for a client that cannot be asked.
func TestPrompts(t *testing.T) {
	e := loadExt(t, content, nil)
	session := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	for _, tt := range []struct {
		name   string
		cs     *mcp.ClientSession
		prompt string
		args   map[string]string
		want   string // the message's text, or the error's
		err    bool
	}{
		{"arguments", e.connect(t, nil, nil), "greet", map[string]string{"name": "Ada", "tone": "formal"}, "Hello, Ada! Be formal.\n", false},
		{"a missing argument", e.connect(t, nil, nil), "greet", map[string]string{"tone": "formal"}, `missing required argument "name"`, true},
		{"asked on a session", e.connect(t, askingClient(false), session), "brief", nil, "For Ada.\n", false},
		{"asked in a round", e.connect(t, askingClient(false), nil), "brief", nil, "For Ada.\n", false},
		{"a client that cannot be asked", e.connect(t, nil, session), "brief", nil, "For .\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: tt.prompt, Arguments: tt.args})
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("prompts/get %s: got %v, want an error with %q", tt.prompt, err, tt.want)
				}
				return
			}
			if err != nil || len(res.Messages) != 1 {
				t.Fatalf("prompts/get %s: %v, %+v; want one message", tt.prompt, err, res)
			}
			if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != tt.want {
				t.Errorf("prompts/get %s: got %#v, want %q", tt.prompt, res.Messages[0].Content, tt.want)
			}
		})
	}
}

// TestCompletions: a prompt argument completes from its enum; a
// template's from its completion script, which runs only where commands
// may, and whose failure or garbage is an error; an unknown reference is
// invalid params.
func TestCompletions(t *testing.T) {
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}
	notes := &mcp.CompleteReference{Type: "ref/resource", URI: "file://./resources/notes/{file}"}
	for _, tt := range []struct {
		name     string
		commands bool
		ref      *mcp.CompleteReference
		arg, val string
		want     []string
		err      string
	}{
		{"enum", true, prompt, "tone", "f", []string{"friendly", "formal"}, ""},
		{"no enum", true, prompt, "name", "A", []string{}, ""},
		{"script", true, notes, "file", "t", []string{"tips.md", "todo.md"}, ""},
		{"script, narrower", true, notes, "file", "to", []string{"todo.md"}, ""},
		{"script not run without commands", false, notes, "file", "t", []string{}, ""},
		{"script fails", true, notes, "file", "fail", nil, "completion notes exited with status 2; stderr:\nbroken"},
		{"script prints garbage", true, notes, "file", "junk", nil, "completion notes printed want a JSON array of strings"},
		{"unknown prompt", true, &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, "x", "", nil, `no prompt or resource matches ref/prompt "nope"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := loadExt(t, content, func(o *Options) { o.RunsCommands = tt.commands })
			res, err := e.connect(t, nil, nil).Complete(context.Background(), &mcp.CompleteParams{Ref: tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.val}})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("complete: got %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Completion.Values); diff != "" {
				t.Errorf("complete %s=%q (-want +got):\n%s", tt.arg, tt.val, diff)
			}
		})
	}
}

// TestCapabilities: the extensions announce logging and changing tools,
// and resources, prompts and completions only when they have them.
func TestCapabilities(t *testing.T) {
	for _, tt := range []struct {
		name                           string
		files                          map[string]string
		resources, prompts, completion bool
	}{
		{"tools only", scripts, false, false, false},
		{"content", content, true, true, true},
	} {
		caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
		loadExt(t, tt.files, nil).b.Capabilities(caps)
		if caps.Logging == nil || !caps.Tools.ListChanged || (caps.Resources != nil) != tt.resources || (caps.Prompts != nil) != tt.prompts || (caps.Completions != nil) != tt.completion {
			t.Errorf("%s: capabilities %+v; want logging, listChanged tools, resources %v, prompts %v, completions %v", tt.name, caps, tt.resources, tt.prompts, tt.completion)
		}
	}
	var none *Set
	caps := &mcp.ServerCapabilities{}
	none.Capabilities(caps)
	if caps.Logging != nil || none.Tools() != nil {
		t.Errorf("no --extensions: capabilities %+v, tools %v; want nothing added", caps, none.Tools())
	}
}

// TestReadUnlisted: a file:// URI no resource lists is read from an
// extension's resources/ directory, as the framework's file provider
// reads it; one outside that directory is not found.
func TestReadUnlisted(t *testing.T) {
	cs := loadExt(t, merge(content, map[string]string{"secret.txt": "top secret\n"}), nil).connect(t, nil, nil)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/unlisted.txt"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "not listed\n" || res.Contents[0].MIMEType != "text/plain; charset=utf-8" {
		t.Errorf("read an unlisted resources/ file: %v, %+v; want its text", err, res)
	}
	for _, uri := range []string{"file://./secret.txt", "file://./resources/../secret.txt", "file:///etc/passwd"} {
		if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: got %+v, want not found", uri, res)
		}
	}
}

// names are the names of tools, prompts or resources.
func names[T any](items []T, name func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, name(it))
	}
	slices.Sort(out)
	return out
}
