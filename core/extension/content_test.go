package extension

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/testbin"
)

// put lays out files under root (testbin.Tree).
func put(t *testing.T, root string, files map[string]string) { testbin.Tree(t, root, files) }

// realTemp is a temporary directory by its real path (testbin.RealTemp).
func realTemp(t *testing.T) string { return testbin.RealTemp(t) }

// reasons maps each skipped file's base name to its reason.
func reasons(skipped []Skipped) map[string]string {
	m := map[string]string{}
	for _, s := range skipped {
		m[filepath.Base(s.Path)] += s.Reason
	}
	return m
}

func TestLoadResources(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"secret": "s"})
	put(t, root, map[string]string{
		"resources/a.meta.json":      `{"name":"a","uri":"file://./resources/a.txt","mimeType":"text/plain"}`,
		"resources/a.txt":            "A",
		"resources/abs.meta.json":    `{"name":"abs","uri":"file://` + root + `/resources/a.txt"}`,
		"resources/t.meta.json":      `{"name":"t","uriTemplate":"file://./resources/{f}"}`,
		"resources/both.meta.json":   `{"name":"both","uri":"file://./resources/a.txt","uriTemplate":"file://./{x}"}`,
		"resources/none.meta.json":   `{"name":"none"}`,
		"resources/novar.meta.json":  `{"name":"novar","uriTemplate":"file://./resources/{}"}`,
		"resources/dup.meta.json":    `{"name":"a","uri":"file://./resources/a.txt"}`,
		"resources/https.meta.json":  `{"name":"web","uri":"https://example.com/x"}`,
		"resources/up.meta.json":     `{"name":"up","uri":"file://./../secret"}`,
		"resources/link.meta.json":   `{"name":"link","uri":"file://./resources/link"}`,
		"resources/link":             "->" + filepath.Join(base, "secret"),
		"resources/gone.meta.json":   `{"name":"gone","uri":"file://./resources/gone.txt"}`,
		"resources/broken.meta.json": `{`,
	})
	res, tmpls, skipped, err := LoadResources([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Resource.Name)
	}
	for _, tm := range tmpls {
		names = append(names, "template "+tm.Template.Name)
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"a", "abs", "template t"}, names); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	want := map[string]string{
		"both.meta.json": "both uri and uriTemplate", "none.meta.json": "neither uri nor uriTemplate",
		"novar.meta.json": "no {variable}", "dup.meta.json": "already defined", "https.meta.json": `provider "https" is not supported`,
		"up.meta.json": "leads outside", "link.meta.json": "leads outside", "gone.meta.json": "no such file",
		"broken.meta.json": "malformed metadata",
	}
	got := reasons(skipped)
	for file, reason := range want {
		if !strings.Contains(got[file], reason) {
			t.Errorf("%s: skipped for %q, want a reason containing %q", file, got[file], reason)
		}
	}
	if len(got) != len(want) {
		t.Errorf("skipped %v, want exactly %d entries", got, len(want))
	}
}

func TestReadFileURI(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"secret": "s"})
	put(t, root, map[string]string{"r/a.txt": "hello", "r/big": strings.Repeat("x", 100), "r/out": "->" + filepath.Join(base, "secret"), "r/in": "->a.txt"})
	for _, tc := range []struct {
		uri, want string
		err       error
	}{
		{"file://./r/a.txt", "hello", nil},
		{"file://r/a.txt", "hello", nil},
		{"file://./r/in", "hello", nil},
		{"file://" + root + "/r/a.txt", "hello", nil},
		{"file://./r/%61.txt", "hello", nil},
		{"file://./r/../../secret", "", ErrOutside},
		{"file://./r/..%2F..%2Fsecret", "", ErrOutside},
		{"file://" + base + "/secret", "", ErrOutside},
		{"file://./r/out", "", ErrOutside},
		{"file://./r/nothing", "", os.ErrNotExist},
	} {
		data, err := ReadFileURI(root, tc.uri, 10)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: got %q, %v; want %v", tc.uri, data, err, tc.err)
			}
			continue
		}
		if err != nil || string(data) != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.uri, data, err, tc.want)
		}
	}
	if _, err := ReadFileURI(root, "file://./r/big", 10); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a file over the limit: %v, want it refused", err)
	}
}

func TestLoadPromptsAndRender(t *testing.T) {
	root := realTemp(t)
	put(t, root, map[string]string{
		"prompts/greet.meta.json":   `{"name":"greet","description":"d","arguments":{"type":"object","required":["who"],"properties":{"who":{"type":"string"},"mood":{"type":"string","enum":["Happy","hungry","calm"]}}}}`,
		"prompts/greet.txt":         "Hi ${who}, {{mood}} ${who} $${other} {{who}}",
		"prompts/sub/plain.md":      "no metadata",
		"prompts/bare.md":           "a template without metadata",
		"prompts/pathed.meta.json":  `{"name":"pathed","path":"sub/plain.md","role":"assistant"}`,
		"prompts/missing.meta.json": `{"name":"missing"}`,
		"prompts/role.meta.json":    `{"name":"role","role":"system"}`,
		"prompts/role.txt":          "x",
		"prompts/args.meta.json":    `{"name":"args","arguments":{"type":"array"}}`,
		"prompts/args.txt":          "x",
		"prompts/zdup.meta.json":    `{"name":"greet"}`,
		"prompts/zdup.txt":          "x",
		"prompts/escape.meta.json":  `{"name":"escape","path":"../../etc/passwd"}`,
	})
	prompts, skipped, err := LoadPrompts([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Prompt{}
	var names []string
	for _, p := range prompts {
		byName[p.Prompt.Name] = p
		names = append(names, p.Prompt.Name)
	}
	sort.Strings(names)
	// bare.md has no metadata: a prompt named after it. sub/plain.md is
	// pathed's template; the templates of skipped
	// metadata (role.txt, args.txt) do not become prompts of their own.
	if diff := cmp.Diff([]string{"bare", "greet", "pathed"}, names); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	got := reasons(skipped)
	for file, reason := range map[string]string{
		"missing.meta.json": "no template", "role.meta.json": `role "system"`, "args.meta.json": `type "array"`,
		"zdup.meta.json": "already defined", "escape.meta.json": "leads outside",
	} {
		if !strings.Contains(got[file], reason) {
			t.Errorf("%s: skipped for %q, want a reason containing %q", file, got[file], reason)
		}
	}
	if p := byName["pathed"]; p == nil || p.Role != "assistant" {
		t.Errorf("pathed: %+v, want the assistant role", p)
	}

	g := byName["greet"]
	text, err := g.Render(map[string]string{"who": "Ada", "other": "${who}"})
	if err != nil {
		t.Fatal(err)
	}
	// mood is declared but not given: empty; a value is never substituted again.
	if want := "Hi Ada,  Ada $${who} Ada"; text != want {
		t.Errorf("render: got %q, want %q", text, want)
	}
	if _, err := g.Render(map[string]string{"mood": "calm"}); !errors.Is(err, ErrMissingArgument) {
		t.Errorf("render without who: %v, want ErrMissingArgument", err)
	}
	if diff := cmp.Diff([]string{"Happy", "hungry"}, g.Complete("mood", "h")); diff != "" {
		t.Errorf("complete mood h (-want +got):\n%s", diff)
	}
}

func TestLoadCompletions(t *testing.T) {
	base := realTemp(t)
	good, bad, strict := filepath.Join(base, "good"), filepath.Join(base, "bad"), filepath.Join(base, "strict")
	put(t, good, map[string]string{
		"server.d/register.json": `{"version":1,"prompts":[{"name":"p"}],"completions":[
			{"name":"ok","path":"completions/ok.sh","timeoutSecs":5},
			{"name":"ok","path":"completions/ok.sh"},
			{"name":"plain","path":"completions/plain.txt"},
			{"name":"script","path":"completions/script.sh"},
			{"name":"out","path":"../outside.sh"},
			{"path":"completions/ok.sh"}]}`,
		"completions/ok.sh":     "#!/bin/sh\necho []\n",
		"completions/plain.txt": "not executable, not a script",
		"completions/script.sh": "echo '[]' # no execute bit: run through bash for its .sh name",
	})
	put(t, bad, map[string]string{"server.d/register.json": `{"version":2,"completions":[]}`})
	put(t, strict, map[string]string{"server.d/register.json": `{"version":1,"extra":true}`})
	comps, skipped, err := LoadCompletions([]string{good, bad, strict})
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 || comps[0].Name != "ok" || comps[0].Timeout != 5 || comps[0].Exec != filepath.Join(good, "completions", "ok.sh") || comps[1].Name != "script" {
		t.Errorf("loaded %+v, want ok and script", comps)
	}
	var all []string
	for _, s := range skipped {
		all = append(all, s.Reason)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"already defined", "not executable and not a script", "leads outside", "no name", `want "version": 1`, `unknown top-level keys "extra"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("skipped reasons lack %q:\n%s", want, joined)
		}
	}
}

func TestCompletionOutput(t *testing.T) {
	many := "[" + strings.Repeat(`"x",`, 150) + `"x"]`
	for _, tc := range []struct {
		out     string
		want    []string
		hasMore bool
		err     bool
	}{
		{`["a","b"]`, []string{"a", "b"}, false, false},
		{`{"suggestions":["a"],"hasMore":true,"next":1}`, []string{"a"}, true, false},
		{"", nil, false, false},
		{`[1,2]`, nil, false, true},
		{`oops`, nil, false, true},
		{many, []string(strings.Fields(strings.Repeat("x ", MaxCompletions))), true, false},
	} {
		got, more, err := CompletionOutput(tc.out)
		if (err != nil) != tc.err || more != tc.hasMore || !cmp.Equal(got, tc.want) {
			t.Errorf("CompletionOutput(%.30q) = %v, %v, %v; want %v, %v, error %v", tc.out, got, more, err, tc.want, tc.hasMore, tc.err)
		}
	}
}

// TestPromptMessagesTemplate: a .messages.json template renders its
// messages, substituting arguments in strings (a value with quotes and
// backslashes stays one string) and embedding the files content blocks
// name; a file outside the directory, through a link or by "..", an
// absolute path, an oversized file, a bad role or malformed JSON is an
// error, never content.
func TestPromptMessagesTemplate(t *testing.T) {
	root, outside := realTemp(t), realTemp(t)
	put(t, outside, map[string]string{"secret.txt": "secret"})
	msgs := func(body string) string {
		return `[{"role":"user","content":{"type":"text","text":"about {{topic}}"}},` + body + `]`
	}
	put(t, root, map[string]string{
		"data/pixel.png":                "\x89PNG\r\n",
		"data/notes.txt":                "some notes",
		"data/link.txt":                 "->" + filepath.Join(outside, "secret.txt"),
		"prompts/rich.meta.json":        `{"name":"rich","arguments":{"type":"object","required":["topic"],"properties":{"topic":{"type":"string"},"uri":{"type":"string"}}}}`,
		"prompts/rich.messages.json":    msgs(`{"role":"assistant","content":{"type":"image","path":"data/pixel.png","mimeType":"image/png"}},{"content":{"type":"resource","resource":{"uri":"{{uri}}","mimeType":"text/plain","path":"data/notes.txt"}}}`),
		"prompts/bare.messages.json":    msgs(""),
		"prompts/link.messages.json":    msgs(`{"content":{"type":"resource","resource":{"uri":"x:1","path":"data/link.txt"}}}`),
		"prompts/dotdot.messages.json":  msgs(`{"content":{"type":"image","path":"../` + filepath.Base(outside) + `/secret.txt","mimeType":"image/png"}}`),
		"prompts/abs.messages.json":     msgs(`{"content":{"type":"audio","path":"` + filepath.Join(outside, "secret.txt") + `","mimeType":"audio/wav"}}`),
		"prompts/role.messages.json":    msgs(`{"role":"system","content":{"type":"text","text":"x"}}`),
		"prompts/garbage.messages.json": `{"not":"an array"`,
	})
	prompts, _, err := LoadPrompts([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Prompt{}
	for _, p := range prompts {
		byName[p.Prompt.Name] = p
	}
	if byName["bare"] == nil {
		t.Fatalf("a messages template without metadata is named without .messages.json: got %v", byName)
	}
	got, err := byName["rich"].Messages(map[string]string{"topic": `q"uo\te`, "uri": "test://notes"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `[{"content":{"type":"text","text":"about q\"uo\\te"},"role":"user"},` +
		`{"content":{"type":"image","mimeType":"image/png","data":"iVBORw0K"},"role":"assistant"},` +
		`{"content":{"type":"resource","resource":{"uri":"test://notes","mimeType":"text/plain","text":"some notes"}},"role":"user"}]`
	if string(b) != want {
		t.Errorf("rich:\n got %s\nwant %s", b, want)
	}
	if _, err := byName["rich"].Messages(nil, nil); !errors.Is(err, ErrMissingArgument) {
		t.Errorf("rich without topic: %v, want ErrMissingArgument", err)
	}
	for name, why := range map[string]string{"link": "", "dotdot": "outside", "abs": "relative", "role": `role "system"`, "garbage": "JSON array"} {
		got, err := byName[name].Messages(map[string]string{"topic": "t"}, nil)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: got %v, %v; want an error containing %q", name, got, err, why)
		}
		if b, _ := json.Marshal(got); strings.Contains(string(b), "secret") || strings.Contains(string(b), "c2VjcmV0") {
			t.Errorf("%s: the file outside reached the messages: %s", name, b)
		}
	}
	put(t, root, map[string]string{"data/big.bin": strings.Repeat("x", MaxPromptFile+1), "prompts/big.messages.json": msgs(`{"content":{"type":"image","path":"data/big.bin","mimeType":"image/png"}}`)})
	prompts, _, _ = LoadPrompts([]string{root})
	for _, p := range prompts {
		if p.Prompt.Name == "big" {
			if _, err := p.Messages(map[string]string{"topic": "t"}, nil); err == nil || !strings.Contains(err.Error(), "limit") {
				t.Errorf("big: %v, want the size limit", err)
			}
		}
	}
}

// TestPromptInputs: a prompt's inputs load when each is one of the three
// questions under a plain key, else the prompt is skipped saying why; the
// answers render at their paths, absent ones empty, and an answer's text
// is never substituted again.
func TestPromptInputs(t *testing.T) {
	root := realTemp(t)
	put(t, root, map[string]string{
		"prompts/ok.meta.json":     `{"name":"ok","inputs":{"who":{"method":"elicitation/create","params":{"message":"?"}},"r":{"method":"roots/list"}}}`,
		"prompts/ok.txt":           "{{who.content.name}}|{{r.roots.1.uri}}|{{who.content}}|{{nobody.x}}|{{who.missing}}",
		"prompts/method.meta.json": `{"name":"method","inputs":{"x":{"method":"tools/call","params":{}}}}`,
		"prompts/method.txt":       "x",
		"prompts/key.meta.json":    `{"name":"key","inputs":{"../x":{"method":"roots/list"}}}`,
		"prompts/key.txt":          "x",
		"prompts/dash.meta.json":   `{"name":"dash","inputs":{"a-b":{"method":"roots/list"}}}`,
		"prompts/dash.txt":         "{{a-b.roots}}",
	})
	prompts, skipped, err := LoadPrompts([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got := reasons(skipped)
	// A key a placeholder could not name is refused, not left unreadable.
	for file, reason := range map[string]string{"method.meta.json": "inputs.x", "key.meta.json": `key "../x"`, "dash.meta.json": `key "a-b"`} {
		if !strings.Contains(got[file], reason) {
			t.Errorf("%s: skipped for %q, want %q", file, got[file], reason)
		}
	}
	if len(prompts) != 1 {
		t.Fatalf("loaded %d prompts, want ok alone", len(prompts))
	}
	msgs, err := prompts[0].Messages(nil, map[string]any{
		"who": map[string]any{"action": "accept", "content": map[string]any{"name": "{{r.roots.0.uri}}"}},
		"r":   map[string]any{"roots": []any{map[string]any{"uri": "file:///a"}, map[string]any{"uri": "file:///b"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{{r.roots.0.uri}}|file:///b|{"name":"{{r.roots.0.uri}}"}|{{nobody.x}}|`
	if text := msgs[0].Content.(*mcp.TextContent).Text; text != want {
		t.Errorf("rendered %q, want %q", text, want)
	}
}
