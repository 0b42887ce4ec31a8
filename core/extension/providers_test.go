package extension

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLoadProjectProviders: resources and templates whose provider is a
// project's providers/NAME.sh load with that script as their source
// (named by "provider", inferred from the scheme, or replacing a built-in
// as the framework's precedence says); a provider script Boris will not
// run skips its entries with the reason.
func TestLoadProjectProviders(t *testing.T) {
	base := realTemp(t)
	root := filepath.Join(base, "ext")
	put(t, base, map[string]string{"outside.sh": "#!/bin/sh\necho secret\n"})
	put(t, root, map[string]string{
		"providers/myapi.sh": "#!/usr/bin/env bash\nprintf ok\n",
		"providers/echo.sh":  "#!/usr/bin/env bash\nprintf override\n",
		"providers/plain.sh": "printf 'no #! line, no execute bit: run through bash'\n",
		"providers/evil.sh":  "->" + filepath.Join(base, "outside.sh"),
		"providers/gone.sh":  "->" + filepath.Join(root, "missing.sh"),

		"resources/status.meta.json":   `{"name": "status", "uri": "myapi://status", "provider": "myapi", "mimeType": "application/json"}`,
		"resources/inferred.meta.json": `{"name": "inferred", "uri": "myapi://inferred"}`,
		"resources/plain.meta.json":    `{"name": "plain", "uri": "plain://x", "provider": "plain", "timeoutSecs": 5}`,
		"resources/items.meta.json":    `{"name": "items", "uriTemplate": "myapi://items/{id}", "provider": "myapi"}`,
		"resources/echoes.meta.json":   `{"name": "echoes", "uriTemplate": "echo://{text}"}`,

		"resources/evil.meta.json":     `{"name": "evil", "uri": "evil://x", "provider": "evil"}`,
		"resources/gone.meta.json":     `{"name": "gone", "uri": "gone://x", "provider": "gone"}`,
		"resources/climb.meta.json":    `{"name": "climb", "uri": "x://y", "provider": "../outside"}`,
		"resources/hidden.meta.json":   `{"name": "hidden", "uri": "x://y", "provider": ".hidden"}`,
		"resources/absent.meta.json":   `{"name": "absent", "uri": "nope://x", "provider": "nope"}`,
		"resources/slow.meta.json":     `{"name": "slow", "uri": "myapi://slow", "provider": "myapi", "timeoutSecs": 0}`,
		"resources/endless.meta.json":  `{"name": "endless", "uri": "myapi://endless", "provider": "myapi", "timeoutSecs": 601}`,
		"resources/evil-t.meta.json":   `{"name": "evil-t", "uriTemplate": "evil://{x}", "provider": "evil"}`,
		"resources/notafile.meta.json": `{"name": "notafile", "uri": "dir://x", "provider": "dir"}`,
	})
	if err := os.Mkdir(filepath.Join(root, "providers", "dir.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, tmpls, skipped, err := LoadResources([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	script := func(name string) string { return filepath.Join(root, "providers", name+".sh") }
	got := map[string]Source{}
	for _, r := range res {
		got[r.Resource.Name] = r.Source
	}
	for _, tm := range tmpls {
		got[tm.Template.Name] = tm.Source
	}
	want := map[string]Source{
		"status":   {Provider: "myapi", Script: script("myapi"), Root: root},
		"inferred": {Provider: "myapi", Script: script("myapi"), Root: root},
		"plain":    {Provider: "plain", Script: script("plain"), Timeout: 5, Root: root},
		"items":    {Provider: "myapi", Script: script("myapi"), Root: root},
		"echoes":   {Provider: "echo", Script: script("echo"), Root: root}, // the project's echo.sh serves templates too
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	why := reasons(skipped)
	for file, reason := range map[string]string{
		"evil.meta.json":     "leads outside the extension directory",
		"evil-t.meta.json":   "leads outside the extension directory",
		"gone.meta.json":     "no such file",
		"climb.meta.json":    "not a provider name",
		"hidden.meta.json":   "not a provider name",
		"absent.meta.json":   `provider "nope" is not supported by Boris`,
		"slow.meta.json":     "timeoutSecs 0",
		"endless.meta.json":  "timeoutSecs 601",
		"notafile.meta.json": "not a regular file",
	} {
		if !strings.Contains(why[file], reason) {
			t.Errorf("%s: skipped for %q, want a reason containing %q", file, why[file], reason)
		}
	}
	if len(skipped) != 9 {
		t.Errorf("%d entries skipped, want 9: %+v", len(skipped), skipped)
	}
}

// TestProjectProviderReplacesFile: the project's providers/file.sh comes
// before the built-in file provider, as in the framework, so a file://
// resource it serves need not be a file of the directory.
func TestProjectProviderReplacesFile(t *testing.T) {
	root := realTemp(t)
	put(t, root, map[string]string{
		"providers/file.sh":           "#!/bin/sh\necho from the script\n",
		"resources/virtual.meta.json": `{"name": "virtual", "uri": "file://./resources/not-there.txt"}`,
	})
	res, _, skipped, err := LoadResources([]string{root})
	if err != nil || len(skipped) > 0 {
		t.Fatalf("LoadResources: %v, skipped %+v", err, skipped)
	}
	if len(res) != 1 || res[0].Script != filepath.Join(root, "providers", "file.sh") {
		t.Errorf("got %+v, want the virtual resource served by providers/file.sh", res)
	}
}

func TestValidProviderName(t *testing.T) {
	for name, want := range map[string]bool{
		"myapi": true, "my-api": true, "my_api.v2": true, "svn+ssh": true, "9p": true,
		"": false, ".": false, "..": false, ".hidden": false, "-x": false, "a/b": false,
		"../x": false, "a b": false, "a\x00": false, strings.Repeat("a", 65): false,
	} {
		if got := validProviderName(name); got != want {
			t.Errorf("validProviderName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestFingerprintSeesProviders: a provider script that changes reloads
// the content, as a tool's program does.
func TestFingerprintSeesProviders(t *testing.T) {
	root := realTemp(t)
	put(t, root, map[string]string{"providers/a.sh": "#!/bin/sh\necho a\n"})
	before := Fingerprint([]string{root})
	put(t, root, map[string]string{"providers/b.sh": "#!/bin/sh\necho b\n"})
	if Fingerprint([]string{root}) == before {
		t.Error("adding providers/b.sh left the fingerprint as it was")
	}
}
