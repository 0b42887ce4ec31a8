package extension

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseRegister: what the framework's validator refuses is refused
// whole, with a message saying what is wrong.
func TestParseRegister(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string
	}{
		{"minimal", `{"version": 1}`, ""},
		{"every kind", `{"version": 1, "tools": [], "resources": null, "resourceTemplates": [], "prompts": [], "completions": [], "_meta": {"a": 1}}`, ""},
		{"version 1.0", `{"version": 1.0}`, ""},
		{"no version", `{"tools": []}`, `want "version": 1`},
		{"version 2", `{"version": 2}`, `want "version": 1`},
		{"version as a string", `{"version": "1"}`, `want "version": 1`},
		{"byte order mark", "\xef\xbb\xbf{\"version\": 1}", "byte order mark"},
		{"comment", "{\"version\": 1 // one\n}", "malformed register.json"},
		{"truncated", `{"version": 1, "tools": [`, "malformed register.json"},
		{"two values", `{"version": 1} {"version": 1}`, "more than one JSON value"},
		{"an array", `[{"version": 1}]`, "malformed register.json"},
		{"null", `null`, "must be a JSON object"},
		{"unknown key", `{"version": 1, "tool": []}`, `unknown top-level keys "tool"`},
		{"kind not an array", `{"version": 1, "tools": {}}`, `"tools" must be an array or null`},
		{"entry not an object", `{"version": 1, "prompts": ["p"]}`, "prompts[0]: want an object"},
		{"_meta not an object", `{"version": 1, "_meta": []}`, `"_meta" must be an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseRegister([]byte(tc.json))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want it accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestRegisterDeclared: a kind absent or null falls through to the scan;
// present, even [], it replaces the scan.
func TestRegisterDeclared(t *testing.T) {
	entries, err := parseRegister([]byte(`{"version": 1, "tools": [], "prompts": null, "resources": [{"name": "r"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := &register{entries: entries}
	for kind, want := range map[string]bool{"tools": true, "prompts": false, "resources": true, "resourceTemplates": false} {
		if got := r.declared(kind); got != want {
			t.Errorf("declared(%s) = %v, want %v", kind, got, want)
		}
	}
	var none *register
	if none.declared("tools") || none.list("tools") != nil {
		t.Error("a directory without register.json declares something")
	}
}

// TestLoadRegisterRefusesHostileFiles: too large, or a symlink leading
// out of the directory, and nothing of the directory loads.
func TestLoadRegisterRefusesHostileFiles(t *testing.T) {
	base := realTemp(t)
	big, linked := filepath.Join(base, "big"), filepath.Join(base, "linked")
	put(t, base, map[string]string{"elsewhere.json": `{"version": 1}`})
	put(t, big, map[string]string{
		"server.d/register.json": `{"version": 1, "_meta": {"pad": "` + strings.Repeat("x", MaxMetaSize) + `"}}`,
		"tools/a/tool.meta.json": `{"name": "big-a"}`,
		"tools/a/tool.sh":        "#!/bin/sh\necho a\n",
		"prompts/p.txt":          "a prompt",
		"resources/r.meta.json":  `{"name": "big-r", "uri": "file://./resources/r.txt"}`,
		"resources/r.txt":        "r",
		"completions/c.sh":       "#!/bin/sh\necho []\n",
	})
	put(t, linked, map[string]string{"server.d/register.json": "->" + filepath.Join(base, "elsewhere.json")})
	for dir, want := range map[string]string{big: "over the 1048576 limit", linked: "leads outside"} {
		if _, err := loadRegister(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", filepath.Base(dir), err, want)
		}
	}
	tools, sk, _ := Load([]string{big}, nil)
	prompts, sk2, _ := LoadPrompts([]string{big})
	res, tmpls, sk3, _ := LoadResources([]string{big})
	comps, sk4, _ := LoadCompletions([]string{big})
	if len(tools)+len(prompts)+len(res)+len(tmpls)+len(comps) != 0 {
		t.Errorf("a directory with an oversized register.json loaded %d tools, %d prompts, %d resources, %d templates, %d completions; want none", len(tools), len(prompts), len(res), len(tmpls), len(comps))
	}
	for _, s := range append(append(append(sk, sk2...), sk3...), sk4...) {
		if s.Path != registerPath(big) || !strings.Contains(s.Reason, "of this directory are loaded") {
			t.Errorf("skipped %+v, want register.json named with what is not loaded", s)
		}
	}
}

// TestLoadDeclaredTools: register.json's tools replace the scan; a path is
// relative to tools/ and may not lead out of it, written or through a
// symlink; the program must be one the framework would run.
func TestLoadDeclaredTools(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"outside.sh": "#!/bin/sh\necho out\n"})
	put(t, root, map[string]string{
		"server.d/register.json": `{"version": 1, "tools": [
			{"name": "root-level", "path": "demo.sh", "timeoutSecs": 8},
			{"name": "older-arguments", "path": "sub/plain.sh", "arguments": {"type": "object", "properties": {"x": {"type": "string"}}}},
			{"name": "climb", "path": "../server.d/register.json"},
			{"name": "absolute", "path": "` + filepath.Join(base, "outside.sh") + `"},
			{"name": "linked", "path": "link.sh"},
			{"name": "missing", "path": "nothing.sh"},
			{"name": "not-runnable", "path": "data.txt"},
			{"name": "no-path"},
			{"name": "bad name!", "path": "demo.sh"},
			{"name": "root-level", "path": "demo.sh"},
			{"name": "bad-timeout", "path": "demo.sh", "timeoutSecs": 0},
			{"name": "wrong-type", "path": 7}]}`,
		"tools/demo.sh":                "#!/bin/sh\necho demo\n",
		"tools/sub/plain.sh":           "echo plain # no execute bit, no #!: a .sh runs through bash",
		"tools/data.txt":               "data",
		"tools/link.sh":                "->" + filepath.Join(base, "outside.sh"),
		"tools/scanned/tool.meta.json": `{"name": "scanned"}`,
		"tools/scanned/tool.sh":        "#!/bin/sh\necho scanned\n",
	})
	tools, skipped, err := Load([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"root-level", "older-arguments"}, names); diff != "" {
		t.Fatalf("loaded (-want +got):\n%s", diff)
	}
	if tools[0].Exec != filepath.Join(root, "tools", "demo.sh") || tools[0].Timeout != 8 {
		t.Errorf("root-level: %+v", tools[0])
	}
	if tools[1].Input.Properties["x"] == nil {
		t.Errorf("older-arguments: input schema %+v, want \"arguments\" taken as inputSchema", tools[1].Input)
	}
	got := map[string]string{}
	for _, s := range skipped {
		got[strings.TrimPrefix(s.Path, filepath.Join(root, "server.d", "register.json")+": ")] = s.Reason
	}
	for entry, want := range map[string]string{
		`tools[2] "climb"`:        "leads outside",
		`tools[3] "absolute"`:     "want a path relative to tools/",
		`tools[4] "linked"`:       "leads outside",
		`tools[5] "missing"`:      "no such file",
		`tools[6] "not-runnable"`: "not executable and not a script",
		`tools[7] "no-path"`:      `no "path"`,
		`tools[8] "bad name!"`:    "tool name",
		`tools[9] "root-level"`:   "already defined",
		`tools[10] "bad-timeout"`: "timeoutSecs 0",
		`tools[11]`:               "malformed entry",
	} {
		if !strings.Contains(got[entry], want) {
			t.Errorf("%s: skipped for %q, want a reason containing %q", entry, got[entry], want)
		}
	}
	if len(got) != 10 {
		t.Errorf("skipped %v, want exactly 10 entries (the scanned tool is shadowed, not skipped)", got)
	}
}

// TestLoadDeclaredContent: declared resources and prompts replace the
// scan; declared templates merge over it, replacing the scanned one of
// their name; a template reusing a resource's name is dropped.
func TestLoadDeclaredContent(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"secret.txt": "s"})
	put(t, root, map[string]string{
		"server.d/register.json": `{"version": 1,
			"resources": [
				{"name": "echo", "uri": "echo://hi/there%20you", "provider": "echo", "path": "placeholder.txt"},
				{"name": "inferred-echo", "uri": "echo://x"},
				{"name": "file", "uri": "file://./resources/a.txt"},
				{"name": "web", "uri": "https://example.com/"},
				{"name": "mismatch", "uri": "file://./resources/a.txt", "provider": "echo"},
				{"name": "climbing-path", "uri": "echo://y", "path": "../../secret.txt"},
				{"name": "clash", "uri": "file://./resources/a.txt#2"}],
			"resourceTemplates": [
				{"name": "files", "uriTemplate": "file:///{path}", "description": "declared"},
				{"name": "logs", "uriTemplate": "file:///var/log/{service}.log"},
				{"name": "clash", "uriTemplate": "file:///{x}/{y}"},
				{"name": "logs", "uriTemplate": "file:///again/{x}"},
				{"name": "novar", "uriTemplate": "file:///static"}],
			"prompts": [
				{"name": "p", "path": "p.txt", "arguments": [{"name": "topic", "required": true}]},
				{"name": "leak", "path": "../../secret.txt"},
				{"name": "nopath"}]}`,
		"resources/a.txt":             "A",
		"resources/placeholder.txt":   "placeholder",
		"resources/scanned.meta.json": `{"name": "scanned", "uri": "file://./resources/a.txt"}`,
		"resources/files.meta.json":   `{"name": "files", "title": "Scanned", "uriTemplate": "file:///{path}"}`,
		"resources/repo.meta.json":    `{"name": "repo", "uriTemplate": "git+https://{repo}/{path}"}`,
		"prompts/p.txt":               "Topic: {{topic}}",
		"prompts/scanned.txt":         "shadowed",
	})
	res, tmpls, skipped, err := LoadResources([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	prompts, sk, err := LoadPrompts([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	skipped = append(skipped, sk...)
	var got []string
	for _, r := range res {
		got = append(got, "resource "+r.Resource.Name+" "+r.Provider)
	}
	for _, tm := range tmpls {
		got = append(got, "template "+tm.Template.Name+" "+tm.Provider+" "+tm.Template.Title+tm.Template.Description)
	}
	for _, p := range prompts {
		got = append(got, "prompt "+p.Prompt.Name)
	}
	sort.Strings(got)
	want := []string{
		"prompt p",
		"resource clash file", "resource echo echo", "resource file file", "resource inferred-echo echo",
		"template files file declared", "template logs file ", "template repo git ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Path[strings.LastIndex(s.Path, ": ")+2:]] += s.Reason
	}
	for entry, want := range map[string]string{
		`resources[3] "web"`:           `provider "https" is not supported`,
		`resources[4] "mismatch"`:      "does not fit the echo provider",
		`resources[5] "climbing-path"`: "leads outside",
		`resourceTemplates[2] "clash"`: "is a resource's",
		`resourceTemplates[3] "logs"`:  "declared twice",
		`resourceTemplates[4] "novar"`: "no {variable}",
		`prompts[1] "leak"`:            "leads outside",
		`prompts[2] "nopath"`:          `no "path"`,
	} {
		if !strings.Contains(reasons[entry], want) {
			t.Errorf("%s: skipped for %q, want a reason containing %q (all: %v)", entry, reasons[entry], want, reasons)
		}
	}
	if len(prompts) == 1 {
		if _, err := prompts[0].Render(nil); err == nil {
			t.Error("rendering p without its required topic succeeded")
		}
		if text, err := prompts[0].Render(map[string]string{"topic": "x"}); err != nil || text != "Topic: x" {
			t.Errorf("render: %q, %v", text, err)
		}
	}
	if got := Echo("echo://hi/there%20you%21"); got != "hi/there you%21" {
		t.Errorf("Echo: got %q, want only %%20 decoded, as providers/echo.sh does", got)
	}
}

// TestReadResourcesFile: an unlisted file:// URI reads only under
// resources/, never through a link that leads out.
func TestReadResourcesFile(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"secret": "s"})
	put(t, root, map[string]string{"resources/a.txt": "A", "other.txt": "O", "resources/out": "->" + filepath.Join(base, "secret"), "resources/up": "->../other.txt"})
	for uri, want := range map[string]string{
		"file://./resources/a.txt":                "A",
		"file://" + root + "/resources/a.txt":     "A",
		"file://./other.txt":                      "",
		"file://./resources/../other.txt":         "",
		"file://./resources/out":                  "",
		"file://./resources/up":                   "",
		"file://" + filepath.Join(base, "secret"): "",
	} {
		data, err := ReadResourcesFile(root, uri, 10)
		if string(data) != want || (want == "" && err == nil) {
			t.Errorf("ReadResourcesFile(%s) = %q, %v; want %q", uri, data, err, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(root, "resources")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResourcesFile(root, "file://./other.txt", 10); err == nil {
		t.Error("a directory without resources/ served a file")
	}
}

// TestFingerprintSeesDeclaredPrograms: a program at the root of tools/,
// which only register.json reaches, is part of what hot reload watches.
func TestFingerprintSeesDeclaredPrograms(t *testing.T) {
	root := realTemp(t)
	put(t, root, map[string]string{"server.d/register.json": `{"version": 1, "tools": [{"name": "d", "path": "d.sh"}]}`, "tools/d.sh": "#!/bin/sh\necho 1\n"})
	before := Fingerprint([]string{root})
	put(t, root, map[string]string{"tools/d.sh": "#!/bin/sh\necho changed\n"})
	if Fingerprint([]string{root}) == before {
		t.Error("changing tools/d.sh left the fingerprint as it was")
	}
}
