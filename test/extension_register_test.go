package test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// registeredDir is testdata/extensions/registered: the shapes of
// mcp-bash-framework's examples 09 (registry overrides) and 11 (resource
// templates), declared in server.d/register.json beside scanned entries
// that register.json must shadow.
func registeredDir(t *testing.T) string {
	t.Helper()
	// One declared program ships without the execute bit.
	return extensionFixture(t, "registered", "tools/sub/echo.sh")
}

func TestExtensionRegisterJSON(t *testing.T) {
	dir := registeredDir(t)
	var mu sync.Mutex
	var progress []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		},
	})
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", dir}, client: client, protocol: "2025-11-25"})
	s := c.session
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("tools are register.json's, not the scan's", func(t *testing.T) {
		tools, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			if strings.HasPrefix(tool.Name, "registered") {
				names = append(names, tool.Name)
			}
		}
		slices.Sort(names)
		if diff := cmp.Diff([]string{"registered.echo", "registered.progress"}, names); diff != "" {
			t.Errorf("extension tools (-want +got):\n%s", diff)
		}
	})
	t.Run("a program at the root of tools/, with progress and an outputSchema", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "registered.progress", Arguments: map[string]any{}}
		params.SetProgressToken("p1")
		res, err := s.CallTool(ctx, params)
		if err != nil || res.IsError {
			t.Fatalf("registered.progress: %v %v", res, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(b), `"message":"Registered tool finished"`) {
			t.Errorf("structuredContent %s, want the tool's message", b)
		}
		// The client handles notifications apart from responses: the last
		// progress may be handled after the result.
		waitFor(t, "progress to reach 100", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(progress) > 0 && progress[len(progress)-1] == 100
		})
	})
	t.Run("arguments as inputSchema, a program without the execute bit", func(t *testing.T) {
		if got := c.ok("registered.echo", map[string]any{"word": "hi"}); !strings.Contains(got, "echo: hi") {
			t.Errorf("registered.echo: got %q, want echo: hi", got)
		}
		c.fails("INVALID_INPUT", "registered.echo", map[string]any{})
	})
	t.Run("resources: echo and file providers, the scanned one shadowed", func(t *testing.T) {
		names := resourceNames(t, ctx, s)
		if diff := cmp.Diff([]string{"registered.echo-hello", "registered.file"}, names); diff != "" {
			t.Errorf("resources/list (-want +got):\n%s", diff)
		}
		echo, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "echo://Hello-from-register.json/with%20a%20space"})
		if err != nil || echo.Contents[0].Text != "Hello-from-register.json/with a space" || echo.Contents[0].MIMEType != "text/plain" {
			t.Errorf("read the echo resource: %+v %v, want its payload with %%20 decoded", echo, err)
		}
		file, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/example.txt"})
		if err != nil || !strings.Contains(file.Contents[0].Text, "reachable via the project-files template") {
			t.Errorf("read the file resource: %+v %v", file, err)
		}
		// Only the URI the echo entry lists is served, as the framework
		// infers no provider for other echo:// URIs.
		if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "echo://anything"}); err == nil {
			t.Errorf("read an unlisted echo URI: got %+v, want not found", res)
		}
	})
	t.Run("templates: register.json merged over the scan", func(t *testing.T) {
		list, err := s.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*mcp.ResourceTemplate{}
		var names []string
		for _, tm := range list.ResourceTemplates {
			got[tm.Name] = tm
			names = append(names, tm.Name)
		}
		slices.Sort(names)
		if diff := cmp.Diff([]string{"logs-by-date", "project-files", "repo-tree"}, names); diff != "" {
			t.Fatalf("resources/templates/list (-want +got):\n%s", diff)
		}
		pf := got["project-files"]
		if pf.Description != "Manual override with annotations applied" || pf.Annotations == nil || !slices.Equal(pf.Annotations.Audience, []mcp.Role{"assistant"}) || pf.Title != "" {
			t.Errorf("project-files: got %+v, want register.json's entry whole (its description and annotations, no scanned title)", pf)
		}
		for uri, want := range map[string]string{
			"file:///var/log/syslog/today.log":      "leads outside",            // listed, but outside the directory
			"git+https://example.com/main/a.txt":    "git provider is disabled", // listed, never fetched
			"file://./resources/../../../etc/hosts": "not found",                // not listed, climbing out
		} {
			if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("read %s: got %+v, %v; want an error saying %q", uri, res, err, want)
			}
		}
	})
	t.Run("an unlisted file under resources/ reads, as the framework's file provider serves it", func(t *testing.T) {
		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/echo-placeholder.txt"})
		if err != nil || !strings.Contains(res.Contents[0].Text, "stable path") {
			t.Errorf("read: %+v %v", res, err)
		}
		if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./server.d/register.json"}); err == nil {
			t.Errorf("read a file outside resources/ that nothing lists: got %+v, want it refused", res)
		}
	})
	t.Run("prompts: register.json's, its argument filled", func(t *testing.T) {
		list, err := s.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Prompts) != 1 || list.Prompts[0].Name != "registered.prompt" || len(list.Prompts[0].Arguments) != 1 || list.Prompts[0].Arguments[0].Name != "topic" {
			t.Fatalf("prompts/list: got %+v, want registered.prompt with its topic argument (prompts/scanned.txt shadowed)", list.Prompts)
		}
		res, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "registered.prompt", Arguments: map[string]string{"topic": "overrides"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Messages[0].Content.(*mcp.TextContent).Text; got != "Manual registry prompt demo. Topic hint: overrides.\n" {
			t.Errorf("prompts/get: got %q, want the topic filled in", got)
		}
	})
}

// TestExtensionRegisterJSONRefused: a register.json the framework would
// refuse loads nothing from its directory (the framework fails every list
// then, and never falls back to scanning); entries leading outside are
// skipped alone, each with a log line naming the file and the entry.
func TestExtensionRegisterJSONRefused(t *testing.T) {
	base := realTempDir(t)
	secret := filepath.Join(base, "secret.txt")
	writeFile(t, secret, "top secret")
	broken := filepath.Join(base, "broken")
	writeFile(t, filepath.Join(broken, "server.d", "register.json"), `{"version": 1, "tools": [`)
	writeFile(t, filepath.Join(broken, "tools", "t", "tool.meta.json"), `{"name": "broken-scanned"}`)
	writeFile(t, filepath.Join(broken, "tools", "t", "tool.sh"), "echo scanned")
	writeFile(t, filepath.Join(broken, "prompts", "p.txt"), "scanned prompt")
	hostile := filepath.Join(base, "hostile")
	writeFile(t, filepath.Join(hostile, "server.d", "register.json"), `{"version": 1,
		"tools": [
			{"name": "climb", "path": "../../secret.sh"},
			{"name": "abs", "path": "`+secret+`"},
			{"name": "linked", "path": "link.sh"},
			{"name": "fine", "path": "fine.sh"}],
		"prompts": [{"name": "leak", "path": "leak.txt"}],
		"resources": [{"name": "up", "uri": "file://./../secret.txt"}]}`)
	writeFile(t, filepath.Join(hostile, "tools", "fine.sh"), "echo fine")
	writeFile(t, filepath.Join(base, "secret.sh"), "cat "+secret)
	if err := os.MkdirAll(filepath.Join(hostile, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"tools/link.sh": filepath.Join(base, "secret.sh"), "prompts/leak.txt": secret} {
		if err := os.Symlink(target, filepath.Join(hostile, link)); err != nil {
			t.Fatal(err)
		}
	}
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", broken, "--extensions", hostile}, protocol: "2025-11-25"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "broken-scanned" || tool.Name == "climb" || tool.Name == "abs" || tool.Name == "linked" {
			t.Errorf("%s is listed: want it refused", tool.Name)
		}
	}
	if got := c.ok("fine", nil); !strings.Contains(got, "fine") {
		t.Errorf("fine: got %q", got)
	}
	log := c.stderr.String()
	for _, want := range []string{
		filepath.Join(broken, "server.d", "register.json"), "malformed register.json", "no tools of this directory are loaded", "no prompts of this directory",
		`tools[0] \"climb\"`, `tools[1] \"abs\"`, `tools[2] \"linked\"`, `prompts[0] \"leak\"`, `resources[0] \"up\"`, "leads outside",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "top secret") {
		t.Errorf("log shows the secret:\n%s", log)
	}
}
