package test

//lint:file-ignore SA1019 the tests speak to the core as 2025 clients do: logging is deprecated by 2026-07-28, not gone

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shippedDir is testdata/extensions/shipped: every shape of
// mcp-bash-framework's examples 00-11 (except elicitation), with the file
// modes the framework ships them with: most tool.sh files lack the
// execute bit, which the framework answers by running them through bash.
func shippedDir(t *testing.T) string {
	t.Helper()
	// The point of the fixture is its modes.
	return extensionFixture(t, "shipped", "tools/echo-arg/tool.sh", "tools/bare/tool", "tools/plain-sh/tool.sh", "completions/suggest.sh")
}

func TestExtensionShippedShapesRunUnchanged(t *testing.T) {
	dir := shippedDir(t)
	work := realTempDir(t)
	writeFile(t, filepath.Join(work, "sample.txt"), "Hello from roots example!")
	outside := filepath.Join(realTempDir(t), "secret.txt")
	writeFile(t, outside, "secret")

	var mu sync.Mutex
	var progress []float64
	var logs []string
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, req.Params.Logger+": "+toString(req.Params.Data))
			mu.Unlock()
		},
	})
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", dir}, client: client, protocol: "2025-11-25"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}

	tools, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tool := range tools.Tools {
		listed[tool.Name] = true
	}
	if listed["shipped-notrunnable"] {
		t.Error("shipped-notrunnable (tool.py: no execute bit, no #! line) is listed; the framework refuses it")
	}
	if log := c.stderr.String(); !strings.Contains(log, "tool.py") || !strings.Contains(log, "not executable and not a script") {
		t.Errorf("stderr does not say why tool.py was skipped:\n%s", log)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"shipped-hello", nil, "Hello from example tool"},
		{"shipped-echo-arg", map[string]any{"value": "hi"}, "You sent: hi (bash "},
		{"shipped-logger", nil, "Check your logging notifications"},
		{"shipped-roots-read", map[string]any{"path": filepath.Join(work, "sample.txt")}, "Hello from roots example!"},
		{"shipped-embed-resource", nil, "See embedded report for details"},
		{"shipped-bare", nil, "bare ran under bash "},
		{"shipped-plain-sh", nil, "plain-sh ran under bash "},
		{"shipped-strict", nil, "strict ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !listed[tc.name] {
				t.Fatalf("%s is not in tools/list", tc.name)
			}
			if got := c.ok(tc.name, tc.args); !strings.Contains(got, tc.want) {
				t.Errorf("%s: got %q, want it to contain %q", tc.name, got, tc.want)
			}
		})
	}

	t.Run("structured result", func(t *testing.T) {
		res := c.call("shipped-echo-arg", map[string]any{"value": "x"})
		b, _ := json.Marshal(res.StructuredContent)
		if !strings.Contains(string(b), `"success":true`) || !strings.Contains(string(b), `You sent: x`) {
			t.Errorf("structuredContent %s, want the SDK's success envelope", b)
		}
	})
	t.Run("missing required argument", func(t *testing.T) {
		c.fails("INVALID_INPUT", "shipped-echo-arg", map[string]any{})
	})
	t.Run("additionalProperties false", func(t *testing.T) {
		c.fails("INVALID_INPUT", "shipped-strict", map[string]any{"extra": 1})
	})
	t.Run("outside the roots", func(t *testing.T) {
		res := c.call("shipped-roots-read", map[string]any{"path": outside})
		if !res.IsError || strings.Contains(text(res), "secret\n") || !strings.Contains(text(res), "outside allowed roots") {
			t.Errorf("got %q (error %v), want the tool's permission_denied error", text(res), res.IsError)
		}
	})
	t.Run("embedded resource", func(t *testing.T) {
		res := c.call("shipped-embed-resource", nil)
		found := false
		for _, ct := range res.Content {
			if er, ok := ct.(*mcp.EmbeddedResource); ok && er.Resource != nil && er.Resource.Text == "Embedded report" {
				found = true
			}
		}
		if !found {
			t.Errorf("content %v, want the report as an embedded resource", res.Content)
		}
	})
	t.Run("progress", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "shipped-slow", Arguments: map[string]any{}}
		params.SetProgressToken("p")
		res, err := c.session.CallTool(ctx, params)
		if err != nil || res.IsError || !strings.Contains(text(res), "Completed after progress updates") {
			t.Fatalf("shipped-slow: %v %v", res, err)
		}
		// The last progress notification may reach its handler after the
		// result has reached the caller.
		waitFor(t, "progress to end at 90", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(progress) > 0 && progress[len(progress)-1] == 90
		})
	})
	t.Run("logs", func(t *testing.T) {
		// The log line is forwarded before the result returns.
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(strings.Join(logs, "\n"), "shipped.logger: about to work") {
			t.Errorf("logs %q, want shipped.logger's line", logs)
		}
	})
	t.Run("resource", func(t *testing.T) {
		res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/greeting.txt"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "Hello from a resource file\n" {
			t.Errorf("resources/read: %v %v", res, err)
		}
	})
	t.Run("resource template", func(t *testing.T) {
		res, err := c.session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{})
		if err != nil || len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate != "file:///{path}" {
			t.Errorf("resources/templates/list: %v %v", res, err)
		}
	})
	t.Run("prompt", func(t *testing.T) {
		res, err := c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "shipped.greeting", Arguments: map[string]string{"name": "Ada"}})
		if err != nil || len(res.Messages) != 1 || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "Hello, Ada! Welcome") {
			t.Errorf("prompts/get: %v %v", res, err)
		}
	})
	t.Run("completion script without the execute bit", func(t *testing.T) {
		res, err := c.session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "shipped.greeting"}, Argument: mcp.CompleteParamsArgument{Name: "name", Value: "re"}})
		if err != nil || !strings.Contains(strings.Join(res.Completion.Values, ","), "retry job") {
			t.Errorf("completion/complete: %v %v", res, err)
		}
	})
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestExtensionWithoutExecuteBitStaysConfined: running a program through
// bash because it lacks the execute bit gives nobody more than running it
// directly would: the same sandbox, the same scoping of who may run
// extension tools at all, the same refusal of links out of the directory,
// and never a `bash` picked up from a directory the agent could write.
func TestExtensionWithoutExecuteBitStaysConfined(t *testing.T) {
	root := realTempDir(t)
	plain := func(name, body string) {
		writeFile(t, filepath.Join(root, "tools", name, "tool.meta.json"), `{"name":"`+name+`","description":"no execute bit"}`)
		writeFile(t, filepath.Join(root, "tools", name, "tool.sh"), "#!/usr/bin/env bash\n"+body)
	}
	plain("escape", "echo pwned > /etc/boris-extension-escape-noexec 2>&1 || echo refused\n")
	plain("whichbash", `echo "bash=$BASH"`+"\n")
	// A script outside the directory, reached through a link: refused as
	// an executable one is, whatever its mode.
	other := realTempDir(t)
	writeFile(t, filepath.Join(other, "evil.sh"), "#!/usr/bin/env bash\necho evil\n")
	writeFile(t, filepath.Join(root, "tools", "linked", "tool.meta.json"), `{"name":"linked"}`)
	if err := os.Symlink(filepath.Join(other, "evil.sh"), filepath.Join(root, "tools", "linked", "tool.sh")); err != nil {
		t.Fatal(err)
	}
	// A `bash` first on PATH, in a directory anyone could have written.
	fake := realTempDir(t)
	writeFile(t, filepath.Join(fake, "bash"), "#!/bin/sh\necho FAKE-BASH\n")
	if err := os.Chmod(filepath.Join(fake, "bash"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + fake + ":" + os.Getenv("PATH")}
	work := realTempDir(t)

	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", root}, env: env})
	if got := c.ok("whichbash", nil); strings.Contains(got, "FAKE") || !strings.Contains(got, "bash=/") || strings.Contains(got, fake) {
		t.Errorf("whichbash: got %q, want a system bash, not the one in %s", got, fake)
	}
	if got := c.ok("escape", nil); !strings.Contains(got, "refused") {
		t.Errorf("escape: got %q, want the sandbox to refuse a write to /etc", got)
	}
	if _, err := os.Stat("/etc/boris-extension-escape-noexec"); err == nil {
		os.Remove("/etc/boris-extension-escape-noexec")
		if landlockABI() > 0 {
			t.Error("an extension tool without the execute bit wrote to /etc: it ran unconfined")
		}
	}
	if msg := c.stderr.String(); !strings.Contains(msg, "leads outside the extension directory") {
		t.Errorf("the linked tool was not refused for leading outside:\n%s", msg)
	}

	for _, args := range [][]string{{"--disable-tools", "bash"}, {"--read-only"}} {
		c := startCoreWith(t, coreOptions{args: append([]string{"--workdir", work, "--extensions", root}, args...), env: env})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		tools, err := c.session.ListTools(ctx, &mcp.ListToolsParams{})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if tool.Name == "whichbash" || tool.Name == "escape" || tool.Name == "linked" {
				t.Errorf("%v: %s is listed; a principal that may not run commands must not get extension tools", args, tool.Name)
			}
		}
	}
}
