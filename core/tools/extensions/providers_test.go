package extensions

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
	"github.com/mjkoo/boris/internal/testbin"
)

// providerSet loads the content of an extension directory holding files
// (as content_test.go's put writes them: "->" makes a symlink, "#!" an
// executable) into a Set, and connects a client to a server serving it.
func providerSet(t *testing.T, files map[string]string, opt Options) (*Set, *mcp.ClientSession, string) {
	t.Helper()
	root := realTemp(t)
	put(t, root, files)
	opt.Dirs = []string{root}
	opt.Environ = os.Environ()
	opt.Log = slog.New(slog.DiscardHandler)
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = 1 << 20
	}
	b := &Set{d: tooltest.In(t, root), opt: opt}
	if err := b.loadExtensionContent(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b, connect(t, b, nil), root
}

// connect serves b's content on an in-memory server and connects a
// client to it, speaking 2025-11-25 (whose resources/subscribe Boris
// serves).
func connect(t *testing.T, b *Set, copt *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	sopt := &mcp.ServerOptions{}
	b.ServerOptions(sopt)
	s := mcp.NewServer(&mcp.Implementation{Name: "test"}, sopt)
	b.AddContent(s)
	return tooltest.Serve(t, s, copt, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// realTemp is a temporary directory by its real path (testbin.RealTemp).
func realTemp(t *testing.T) string { return testbin.RealTemp(t) }

// put lays out files under root (testbin.Tree).
func put(t *testing.T, root string, files map[string]string) { testbin.Tree(t, root, files) }

// providerFiles is a project whose provider "p" does what the URI says:
// p://NAME runs case NAME of the script.
func providerFiles(script string) map[string]string {
	files := map[string]string{
		"providers/p.sh":          "#!/usr/bin/env bash\nuri=\"$1\"\ncase \"${uri#p://}\" in\n" + script + "\nesac\n",
		"resources/env.meta.json": `{"name": "env", "uri": "p://env"}`,
	}
	for _, name := range []string{"text", "png", "garbage", "huge", "hang", "notfound", "invalid", "outside", "crash", "noisy", "marker", "changing"} {
		typ := "text/plain"
		if name == "png" {
			typ = "image/png"
		}
		timeout := ""
		if name == "hang" {
			timeout = `, "timeoutSecs": 1`
		}
		files["resources/"+name+".meta.json"] = `{"name": "` + name + `", "uri": "p://` + name + `", "mimeType": "` + typ + `"` + timeout + `}`
	}
	files["resources/items.meta.json"] = `{"name": "items", "uriTemplate": "p://items/{id}", "mimeType": "application/json"}`
	return files
}

// hostileProvider is the script of the tests below: one case per way a
// provider can behave, well or badly.
const hostileProvider = `env) printf '%s|%s|%s|%s|%s' "$uri" "$MCPBASH_PROJECT_ROOT" "$MCPBASH_PROVIDERS_DIR" "$MCP_RESOURCES_ROOTS" "${BORIS_SECRET:-}" ;;
text) printf 'plain text\n' ;;
png) printf '\x89PNG\r\n\x1a\n\x00\xff' ;;
garbage) printf '\xff\xfe\x00\x1b[2J\xc3' ;;
huge) head -c 3000000 /dev/zero ;;
hang) sleep 60 & echo $! > "$MCPBASH_PROJECT_ROOT/hang.pid"; wait ;;
notfound) echo 'no such thing' >&2; exit 3 ;;
invalid) echo 'bad spec' >&2; exit 4 ;;
outside) exit 2 ;;
crash) echo 'it broke' >&2; exit 7 ;;
noisy) head -c 100000 /dev/zero | tr '\0' x >&2; exit 1 ;;
marker) touch "$MCPBASH_PROJECT_ROOT/ran" ;;
changing) cat "$MCPBASH_PROJECT_ROOT/state" ;;
items/*) id="${uri#p://items/}"; printf '{"id":"%s"}' "$id" ;;
*) touch "$MCPBASH_PROJECT_ROOT/asked-for-$(basename "$uri")"; exit 3 ;;`

// TestProviderReads: what a project provider prints is the resource, as
// text or as a blob; how it fails is a protocol error with the
// framework's code; a run that prints too much, or hangs, is stopped.
func TestProviderReads(t *testing.T) {
	t.Setenv("BORIS_SECRET", "leaked")
	_, cs, root := providerSet(t, providerFiles(hostileProvider), Options{RunsCommands: true})
	ctx := context.Background()
	read := func(uri string) (*mcp.ResourceContents, error) {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return nil, err
		}
		if len(res.Contents) != 1 {
			t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
		}
		return res.Contents[0], nil
	}

	t.Run("environment", func(t *testing.T) {
		got, err := read("p://env")
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Join([]string{"p://env", root, filepath.Join(root, "providers"), filepath.Join(root, "resources"), ""}, "|")
		if got.Text != want {
			t.Errorf("the provider saw %q, want %q (the URI, the framework's variables, nothing else of the core's environment)", got.Text, want)
		}
	})
	t.Run("text", func(t *testing.T) {
		got, err := read("p://text")
		if err != nil || got.Text != "plain text\n" || got.Blob != nil || got.MIMEType != "text/plain" || got.URI != "p://text" {
			t.Errorf("got %+v, %v; want the text as text/plain", got, err)
		}
	})
	t.Run("binary", func(t *testing.T) {
		got, err := read("p://png")
		if want := []byte("\x89PNG\r\n\x1a\n\x00\xff"); err != nil || !bytes.Equal(got.Blob, want) || got.Text != "" || got.MIMEType != "image/png" {
			t.Errorf("got %+v, %v; want the bytes %q as an image/png blob", got, err, want)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		// Not UTF-8, though declared text: a blob of exactly those bytes.
		got, err := read("p://garbage")
		if want := []byte("\xff\xfe\x00\x1b[2J\xc3"); err != nil || !bytes.Equal(got.Blob, want) || got.Text != "" {
			t.Errorf("got %+v, %v; want the bytes %q as a blob", got, err, want)
		}
	})
	t.Run("template", func(t *testing.T) {
		got, err := read("p://items/123")
		if err != nil || got.Text != `{"id":"123"}` || got.MIMEType != "application/json" {
			t.Errorf("got %+v, %v; want the id in the JSON the provider printed", got, err)
		}
	})
	for _, tc := range []struct {
		uri  string
		code int64
		msg  string
	}{
		{"p://huge", jsonrpc.CodeInternalError, "printed more than 1048576 bytes"},
		{"p://hang", jsonrpc.CodeInternalError, "timed out after 1s"},
		{"p://notfound", jsonrpc.CodeInvalidParams, "Resource not found"}, // what mcp.ResourceNotFoundError answers
		{"p://invalid", jsonrpc.CodeInvalidParams, "invalid resource specification p://invalid (provider p): bad spec"},
		{"p://outside", jsonrpc.CodeInternalError, "outside the allowed roots"},
		{"p://crash", jsonrpc.CodeInternalError, "(exit status 7): it broke"},
		{"p://noisy", jsonrpc.CodeInternalError, "(exit status 1): …xxx"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			got, err := read(tc.uri)
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != tc.code || !strings.Contains(werr.Message, tc.msg) {
				t.Fatalf("got %+v, %v; want error %d containing %q", got, err, tc.code, tc.msg)
			}
			if len(werr.Message) > 2200 {
				t.Errorf("the error is %d bytes: what the provider wrote to stderr must be cut", len(werr.Message))
			}
		})
	}
	t.Run("hang leaves nothing running", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(root, "hang.pid"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the hanging provider's child %d still runs", pid)
			}
		}
	})
	t.Run("a URI it does not own", func(t *testing.T) {
		// Neither listed nor matching its template: not found, and the
		// provider is never asked.
		for _, uri := range []string{"p://other", "p://items/1/2", "p://items/1?x", "q://text", "p://text/../env"} {
			if got, err := read(uri); err == nil {
				t.Errorf("read %s: got %+v, want it refused", uri, got)
			}
		}
		if asked, _ := filepath.Glob(filepath.Join(root, "asked-for-*")); len(asked) > 0 {
			t.Errorf("the provider was run for URIs it does not serve: %v", asked)
		}
	})
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestProviderNotRunWithoutCommands: under --read-only or with bash
// disabled a provider, a program, never runs, as completions do not.
func TestProviderNotRunWithoutCommands(t *testing.T) {
	_, cs, root := providerSet(t, providerFiles(hostileProvider), Options{RunsCommands: false})
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "p://marker"})
	if err == nil || !strings.Contains(err.Error(), "does not run under --read-only") {
		t.Errorf("got %v, want the read refused", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the provider ran")
	}
}

// TestProviderSubscription: a subscribed provider resource is watched by
// what the provider prints; a change is announced once, and nothing
// after unsubscribe.
func TestProviderSubscription(t *testing.T) {
	files := providerFiles(hostileProvider)
	files["state"] = "one"
	b, _, root := providerSet(t, files, Options{RunsCommands: true})
	updated := make(chan string, 10)
	cs := connect(t, b, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	ctx := context.Background()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "p://changing"}); err != nil {
		t.Fatal(err)
	}
	// The first poll takes the provider's first state; wait for it.
	for deadline := time.Now().Add(20 * time.Second); !b.content.known("p://changing"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the poller never ran the provider")
		}
	}
	put(t, root, map[string]string{"state": "two"})
	select {
	case uri := <-updated:
		if uri != "p://changing" {
			t.Errorf("notified of %s, want p://changing", uri)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notifications/resources/updated after the provider's output changed")
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "p://changing"}); err != nil {
		t.Fatal(err)
	}
	b.content.mu.Lock()
	n := len(b.content.subs)
	b.content.mu.Unlock()
	if n != 0 {
		t.Errorf("%d URIs still watched after unsubscribe, want 0", n)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "p://unlisted"}); err == nil {
		t.Error("a subscription to a URI no resource lists was accepted")
	}
}

// known reports whether the poller has taken uri's state.
func (c *extContent) known(uri string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.subs[uri]
	return w != nil && w.known
}

// TestSubscriptionsBounded: a template matches endless URIs; a client
// subscribing to them one by one is refused past extMaxWatches, and a URI
// already watched is still accepted.
func TestSubscriptionsBounded(t *testing.T) {
	_, cs, _ := providerSet(t, providerFiles(hostileProvider), Options{RunsCommands: true})
	ctx := context.Background()
	for i := range extMaxWatches {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "p://items/" + strconv.Itoa(i)}); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "p://items/one-more"}); err == nil || !strings.Contains(err.Error(), "watched already") {
		t.Errorf("subscription %d: got %v, want it refused", extMaxWatches+1, err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "p://items/0"}); err != nil {
		t.Errorf("subscribing again to a watched URI: %v", err)
	}
}
