package test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// extContentFixture copies the demo extension into a temporary directory
// (tests change its files) and adds entries Boris must refuse at load: a
// file:// URI climbing out with "..", a resource file that is a symlink to
// a file outside, a git provider, malformed prompt metadata, a prompt
// without its template. A symlink under the template's directory leads
// outside too. It returns the extension directory and the secret outside.
func extContentFixture(t *testing.T) (root, secret string) {
	t.Helper()
	demo := extensionFixture(t, "demo")
	base := realTempDir(t)
	root = filepath.Join(base, "ext")
	if err := os.CopyFS(root, os.DirFS(demo)); err != nil {
		t.Fatal(err)
	}
	secret = filepath.Join(base, "secret.txt")
	writeFile(t, secret, "top secret")
	writeFile(t, filepath.Join(root, "resources", "dotdot.meta.json"), `{"name":"dotdot","uri":"file://./../secret.txt"}`)
	writeFile(t, filepath.Join(root, "resources", "leak.meta.json"), `{"name":"leak","uri":"file://./resources/leak.txt"}`)
	writeFile(t, filepath.Join(root, "resources", "repo.meta.json"), `{"name":"repo","uriTemplate":"git+https://{repo}/{path}","provider":"git"}`)
	writeFile(t, filepath.Join(root, "resources", "web.meta.json"), `{"name":"web","uri":"https://example.com/x"}`)
	writeFile(t, filepath.Join(root, "prompts", "broken.meta.json"), `{"name": "broken",`)
	writeFile(t, filepath.Join(root, "prompts", "orphan.meta.json"), `{"name":"orphan","path":"missing.txt"}`)
	for _, link := range []string{filepath.Join(root, "resources", "leak.txt"), filepath.Join(root, "resources", "notes", "evil.md")} {
		if err := os.Symlink(secret, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, secret
}

// TestExtensionResources: resources/list, read (text and binary), a
// template, and the escape attempts refused at load and at read.
func TestExtensionResources(t *testing.T) {
	root, _ := extContentFixture(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", root}, protocol: "2025-11-25"})
	s := c.session
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	caps := s.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil || caps.Completions == nil {
		t.Errorf("capabilities %+v: want resources (with subscribe), prompts and completions", caps)
	}
	names := resourceNames(t, ctx, s)
	if diff := cmp.Diff([]string{"demo-greeting", "demo-logo"}, names); diff != "" {
		t.Errorf("resources/list names (-want +got):\n%s", diff)
	}
	// Each refused entry has one log line naming its file and the reason.
	log := c.stderr.String()
	for file, reason := range map[string]string{
		"dotdot.meta.json": "leads outside", "leak.meta.json": "leads outside", "web.meta.json": "is not supported by Boris",
		"broken.meta.json": "malformed metadata", "orphan.meta.json": "not found",
	} {
		if !strings.Contains(log, file) || !strings.Contains(log, reason) {
			t.Errorf("log has no line skipping %s (%s):\n%s", file, reason, log)
		}
	}

	text, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/greeting.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text.Contents[0]; got.Text != "Hello from a demo resource\n" || got.MIMEType != "text/plain" || got.Blob != nil {
		t.Errorf("greeting: got %+v, want its text as text/plain", got)
	}
	png, err := os.ReadFile(filepath.Join(root, "resources", "logo.png"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/logo.png"})
	if err != nil {
		t.Fatal(err)
	}
	if got := bin.Contents[0]; !bytes.Equal(got.Blob, png) || got.Text != "" || got.MIMEType != "image/png" {
		t.Errorf("logo: got text %q, %d blob bytes, type %q; want the file's %d bytes as an image/png blob", got.Text, len(got.Blob), got.MIMEType, len(png))
	}

	tmpls, err := s.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uriTemplates []string
	for _, tm := range tmpls.ResourceTemplates {
		uriTemplates = append(uriTemplates, tm.URITemplate)
	}
	slices.Sort(uriTemplates)
	if diff := cmp.Diff([]string{"file://./resources/notes/{file}", "git+https://{repo}/{path}"}, uriTemplates); diff != "" {
		t.Fatalf("templates (-want +got):\n%s", diff)
	}
	// The git provider is disabled, as the framework's is by default: the
	// template is listed, a read of it refused without a fetch.
	if res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "git+https://example.com/README.md"}); err == nil || !strings.Contains(err.Error(), "git provider is disabled") {
		t.Errorf("read through the git template: got %+v, %v; want the git provider disabled", res, err)
	}
	note, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file://./resources/notes/todo.md"})
	if err != nil {
		t.Fatal(err)
	}
	if got := note.Contents[0]; !strings.HasPrefix(got.Text, "# To do") || got.MIMEType != "text/markdown" {
		t.Errorf("a note through the template: got %+v", got)
	}

	for _, uri := range []string{
		"file://./resources/notes/..%2F..%2F..%2Fsecret.txt", // the template's variable climbing out
		"file://./resources/notes/evil.md",                   // a symlink to a file outside
		"file://./../secret.txt",                             // not served at all
		"file://./resources/leak.txt",
	} {
		res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("read %s: got %+v, want it refused", uri, res.Contents)
		} else if strings.Contains(err.Error(), "top secret") {
			t.Errorf("read %s: the error shows the secret: %v", uri, err)
		}
	}
}

// TestExtensionResourceSubscription: a subscribed resource whose file
// changes is announced with notifications/resources/updated.
func TestExtensionResourceSubscription(t *testing.T) {
	root, _ := extContentFixture(t)
	updated := make(chan string, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		},
	})
	s := connectClient(t, client, []string{"--workdir", realTempDir(t), "--extensions", root})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const uri = "file://./resources/greeting.txt"
	if err := s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := s.Subscribe(ctx, &mcp.SubscribeParams{URI: "file://./resources/nothing.txt"}); err == nil {
		t.Errorf("subscribing to a resource no extension serves succeeded, want an error")
	}
	writeFile(t, filepath.Join(root, "resources", "greeting.txt"), "Hello again, changed\n")
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("notifications/resources/updated for %q, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatal("no notifications/resources/updated after the subscribed file changed")
	}
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || res.Contents[0].Text != "Hello again, changed\n" {
		t.Errorf("read after the change: %+v, %v", res, err)
	}
	if err := s.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
}

// TestExtensionProjectProvider: a project-level provider (providers/
// NAME.sh, mcp-bash-framework's contract) serves its resources through the
// real core: it runs confined like an extension tool, in a clean
// environment, and one whose script is a symlink out of the project is
// skipped at load with a log line.
func TestExtensionProjectProvider(t *testing.T) {
	base := realTempDir(t)
	root := filepath.Join(base, "ext")
	writeFile(t, filepath.Join(base, "outside.sh"), "#!/bin/sh\necho outside\n")
	writeFile(t, filepath.Join(root, "providers", "myapi.sh"), `#!/usr/bin/env bash
case "$1" in
myapi://status)
	if touch /etc/boris-provider-escape 2>/dev/null; then w=written; else w=refused; fi
	printf '{"status":"ok","etc":"%s","secret":"%s"}' "$w" "${BORIS_TEST_SECRET:-unset}" ;;
*) echo "unknown: $1" >&2; exit 3 ;;
esac
`)
	if err := os.Chmod(filepath.Join(root, "providers", "myapi.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside.sh"), filepath.Join(root, "providers", "evil.sh")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "resources", "status.meta.json"), `{"name": "api-status", "uri": "myapi://status", "mimeType": "application/json", "provider": "myapi"}`)
	writeFile(t, filepath.Join(root, "resources", "evil.meta.json"), `{"name": "evil", "uri": "evil://x", "provider": "evil"}`)
	work := realTempDir(t)
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--allow-dir", work, "--extensions", root}, env: []string{"BORIS_TEST_SECRET=s3cret"}, protocol: "2025-11-25"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	if diff := cmp.Diff([]string{"api-status"}, resourceNames(t, ctx, c.session)); diff != "" {
		t.Errorf("resources/list names (-want +got):\n%s", diff)
	}
	if log := c.stderr.String(); !strings.Contains(log, "evil.meta.json") || !strings.Contains(log, "leads outside the extension directory") {
		t.Errorf("no log line skipping evil.meta.json, whose provider leads outside:\n%s", log)
	}
	res, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "myapi://status"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Contents[0]
	if got.MIMEType != "application/json" || !strings.Contains(got.Text, `"status":"ok"`) || !strings.Contains(got.Text, `"secret":"unset"`) {
		t.Errorf("read myapi://status: got %+v, want the provider's JSON, printed in a clean environment", got)
	}
	if strings.Contains(got.Text, `"etc":"written"`) {
		os.Remove("/etc/boris-provider-escape")
		if landlockABI() > 0 {
			t.Error("a resource provider wrote to /etc: it ran unconfined")
		}
	}
	if _, err := c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "myapi://other"}); err == nil {
		t.Error("read myapi://other, which no resource lists: got contents, want an error")
	}
	if err := c.session.Subscribe(ctx, &mcp.SubscribeParams{URI: "myapi://status"}); err != nil {
		t.Errorf("subscribe to myapi://status: %v", err)
	}
	if err := c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "myapi://status"}); err != nil {
		t.Errorf("unsubscribe from myapi://status: %v", err)
	}
}

// TestExtensionResourceSubscriptionGateway: through the gateway, a
// subscribed extension resource that changes is announced to a 2025
// session client (on its GET stream) and to a 2026-07-28 client (on its
// subscriptions/listen stream) at once; a subscription to a resource no
// extension serves is refused in both eras and harms neither.
func TestExtensionResourceSubscriptionGateway(t *testing.T) {
	root, _ := extContentFixture(t)
	g := startGateway(t, "--", "--extensions", root)
	const uri = "file://./resources/greeting.txt"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	updates := map[string]chan string{}
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		ch := make(chan string, 10)
		updates[rev] = ch
		s := g.connect(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			ch <- req.Params.URI
		}}, &mcp.ClientSessionOptions{ProtocolVersion: rev})
		if got := s.InitializeResult().ProtocolVersion; got != rev {
			t.Fatalf("client pinned to %s negotiated %s", rev, got)
		}
		// go-sdk's 2026-07-28 Subscribe sends its listen and returns: the
		// refusal is checked over plain HTTP below.
		if err := s.Subscribe(ctx, &mcp.SubscribeParams{URI: "file://./resources/nothing.txt"}); err == nil && rev == "2025-11-25" {
			t.Errorf("%s: subscribing to a resource no extension serves succeeded, want an error", rev)
		}
		if err := s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("%s: subscribe: %v", rev, err)
		}
	}
	body := `{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["file://./resources/nothing.txt"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.url, strings.NewReader(body))
	req.Header = gwHeader("", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	refusal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(refusal), "-32602") {
		t.Errorf("2026-07-28 listen to a resource no extension serves: got %d %s, want 400 with -32602", resp.StatusCode, refusal)
	}
	if n, p := g.sessions(), g.principalCores(); n != 1 || p != 1 {
		t.Errorf("%d sessions and %d principal cores, want 1 and 1", n, p)
	}
	// The 2026-07-28 client's Subscribe returns once its listen is sent,
	// before the core has it: the file is changed until both clients have
	// heard of it.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for rev, ch := range updates {
		for n := 0; ; n++ {
			select {
			case got := <-ch:
				if got != uri {
					t.Errorf("%s: notifications/resources/updated for %q, want %q", rev, got, uri)
				}
			case <-tick.C:
				writeFile(t, filepath.Join(root, "resources", "greeting.txt"), fmt.Sprintf("Hello again, change %d\n", n))
				continue
			case <-ctx.Done():
				t.Fatalf("%s: no notifications/resources/updated after the subscribed file changed\ngateway log:\n%s", rev, g.stderr)
			}
			break
		}
	}
}

// TestExtensionPromptsAndCompletions: prompts/list and prompts/get with
// substitution and a missing required argument; completion/complete from
// a prompt argument's enum and from a completion script for a template.
func TestExtensionPromptsAndCompletions(t *testing.T) {
	root, _ := extContentFixture(t)
	s := connectClient(t, mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, nil),
		[]string{"--workdir", realTempDir(t), "--extensions", root})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	list, err := s.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []*mcp.Prompt{
		{Name: "briefing", Description: "A briefing on a topic, for a reader the user names when asked (the prompt's inputs), with the client's roots", Arguments: []*mcp.PromptArgument{
			{Name: "topic", Required: true},
		}},
		{Name: "demo.greeting", Title: "Greeting", Description: "Greets someone in a chosen tone", Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "Who to greet", Required: true}, {Name: "tone", Description: "How"},
		}},
	}
	if diff := cmp.Diff(want, list.Prompts); diff != "" {
		t.Errorf("prompts/list (-want +got):\n%s", diff)
	}
	got, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo.greeting", Arguments: map[string]string{"name": "Ada", "tone": "formal"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" {
		t.Fatalf("prompts/get: %+v, want one user message", got.Messages)
	}
	if tc, ok := got.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Hello, Ada! Say it in a formal way. ${unknown} stays.\n" {
		t.Errorf("prompts/get text: %#v", got.Messages[0].Content)
	}
	if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo.greeting", Arguments: map[string]string{"tone": "formal"}}); err == nil || !strings.Contains(err.Error(), `missing required argument "name"`) {
		t.Errorf("prompts/get without name: %v, want an error naming it", err)
	}

	for _, tc := range []struct {
		ref        *mcp.CompleteReference
		arg, value string
		want       []string
	}{
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "demo.greeting"}, "tone", "f", []string{"friendly", "formal"}},
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "demo.greeting"}, "name", "A", []string{}},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "file://./resources/notes/{file}"}, "file", "t", []string{"todo.md"}},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "file://./resources/notes/{file}"}, "file", "", []string{"evil.md", "ideas.md", "todo.md"}},
	} {
		res, err := s.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
		if err != nil {
			t.Errorf("complete %s %s=%q: %v", tc.ref.Name+tc.ref.URI, tc.arg, tc.value, err)
			continue
		}
		if diff := cmp.Diff(tc.want, res.Completion.Values); diff != "" {
			t.Errorf("complete %s %s=%q (-want +got):\n%s", tc.ref.Name+tc.ref.URI, tc.arg, tc.value, diff)
		}
	}
	if _, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, Argument: mcp.CompleteParamsArgument{Name: "x"}}); err == nil {
		t.Errorf("completing an unknown prompt succeeded, want an error")
	}
}

// TestExtensionContentCapabilities: an extension of tools only adds no
// resources, prompts or completions capability, and what is not declared
// is not served: those requests get "method not found", not empty lists.
func TestExtensionContentCapabilities(t *testing.T) {
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", realTempDir(t), "--extensions", extFixture(t)}})
	if caps := c.session.InitializeResult().Capabilities; caps.Resources != nil || caps.Prompts != nil || caps.Completions != nil {
		t.Errorf("capabilities %+v: want no resources, prompts or completions", caps)
	}
}

// TestUndeclaredNotServed: what a server does not declare it does not
// serve. The SDK's client refuses such calls itself, so this one speaks
// JSON-RPC on the core's stdio: without extensions, and with an
// extension of tools only, the content and logging requests get -32601
// (method not found), not empty lists.
func TestUndeclaredNotServed(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no extensions", nil},
		{"tools-only extension", []string{"--extensions", extFixture(t)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(borisBin, append([]string{"--workdir", realTempDir(t)}, tc.args...)...)
			cmd.Env = cleanEnv()
			stdin, stdout := startPiped(t, cmd)
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			s := &rawSession{t: t, stdin: stdin, lines: rawLines(stdout)}
			s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			s.await(1)
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			methods := []string{"prompts/list", "resources/list", "resources/templates/list", "completion/complete"}
			if tc.args == nil {
				methods = append(methods, "logging/setLevel") // extensions declare logging
			}
			for i, m := range methods {
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, i+2, m))
				msg := s.await(i + 2)
				e, _ := msg["error"].(map[string]any)
				if e == nil || e["code"] != float64(-32601) {
					t.Errorf("%s: got %v, want error -32601 (method not found): the capability is not declared", m, msg)
				}
			}
		})
	}
}

// resourceNames lists the names resources/list gives, sorted.
func resourceNames(t *testing.T, ctx context.Context, s *mcp.ClientSession) []string {
	t.Helper()
	list, err := s.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Resources {
		names = append(names, r.Name)
	}
	slices.Sort(names)
	return names
}
