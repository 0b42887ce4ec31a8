package doclinks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRepositoryLinks: every relative link and anchor in the repository's
// Markdown, and every docs/ reference in its Go comments, resolves. A
// failure names each broken link by file and line.
func TestRepositoryLinks(t *testing.T) {
	broken, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("broken link %s", b)
	}
}

// TestNoOutOfTreeSpecReferences: no source file cites a section of the
// contract that lived outside the repository; each names its page of
// docs/reference/ instead (scripts/spec-refs.sh rewrites them).
func TestNoOutOfTreeSpecReferences(t *testing.T) {
	found, err := SpecRefs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range found {
		t.Errorf("%s", b)
	}
}

// TestSpecRefsFinds: each form of such a reference is found, on its line.
func TestSpecRefsFinds(t *testing.T) {
	dir := t.TempDir()
	spec := "SP" + "EC" // spelt apart, so that this file holds no such reference
	files := map[string]string{
		"a.go":                 "package a\n\n// bash (" + spec + " §2.3) and\n// more (" + spec + "\n// §2.9).\n",
		"b.yml":                "# see " + spec + ".md §10\n",
		"c.go":                 "package c\n\n// docs/reference/tools.md#bash\n",
		"README.md":            spec + " §1 in prose is not source\n",
		"scripts/spec-refs.sh": "# rewrites " + spec + " §N\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	found, err := SpecRefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range found {
		got = append(got, fmt.Sprintf("%s:%d", b.File, b.Line))
	}
	slices.Sort(got)
	want := []string{"a.go:3", "a.go:4", "b.yml:1"}
	if !slices.Equal(got, want) {
		t.Errorf("SpecRefs: got %v, want %v", got, want)
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Security model", "security-model"},
		{"`boris tasks`", "boris-tasks"},
		{"--anthropic-compat", "--anthropic-compat"},
		{"Clients of the 2024-11-05 HTTP+SSE transport", "clients-of-the-2024-11-05-httpsse-transport"},
		{"MCP 2026-07-28: clients without sessions", "mcp-2026-07-28-clients-without-sessions"},
		{"systemd behind nginx or Caddy", "systemd-behind-nginx-or-caddy"},
		{"task_output", "task_output"},
		{"[The SDK](x.md)'s functions", "the-sdks-functions"},
		{"Résumé, é", "résumé-é"},
	} {
		if got := Slug(tc.heading); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	md := "# Title\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n\n<a id=\"pinned\"></a>\n    # indented code, no heading\n#hashtag\n## Closed ##\n"
	got := Anchors([]byte(md))
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"closed", "pinned", "setup", "setup-1", "title"}
	if !slices.Equal(keys, want) {
		t.Errorf("Anchors: got %v, want %v", keys, want)
	}
}

// TestCheckFindsBroken: a tree with one link of each kind, good and bad,
// reports exactly the bad ones.
func TestCheckFindsBroken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/page.md", "# Page\n\n## A section\n\nBack to [the top](../README.md#top).\n")
	write("README.md", "# Top\n\n"+
		"[good](docs/page.md#a-section) [no file](docs/gone.md) [no anchor](docs/page.md#b-section)\n"+
		"[self](#top) [self bad](#nowhere) [web](https://example.com/x.md#y) `[code](nowhere.md)`\n"+
		"```\n[fenced](nowhere.md)\n```\n"+
		"[ref]: docs/missing.md\n")
	write("x.go", "package x\n\n// See docs/page.md#a-section and docs/page.md#gone.\nvar s = \"docs/other.md\"\n")
	broken, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range broken {
		got = append(got, b.String())
	}
	slices.Sort(got)
	want := []string{
		"README.md:3: docs/gone.md: no such file",
		"README.md:3: docs/page.md#b-section: no heading with this anchor",
		"README.md:4: #nowhere: no heading with this anchor",
		"README.md:8: docs/missing.md: no such file",
		"x.go:3: docs/page.md#gone: no heading with this anchor",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Check: got\n%v\nwant\n%v", got, want)
	}
}
