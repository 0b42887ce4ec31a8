package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// referenceTools is the contract's page of tools and their parameters.
const referenceTools = "../docs/reference/tools.md"

// goldenParams returns, for every tool of the golden tools/list files (the
// extension fixtures' aside: they are the tests' own), the union of the
// parameters it takes in any configuration.
func goldenParams(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "tools", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("golden tool lists: %v, %d files", err, len(files))
	}
	params := map[string][]string{}
	for _, f := range files {
		if filepath.Base(f) == "extensions.json" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"inputSchema"`
		}
		if err := json.Unmarshal(b, &tools); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tool := range tools {
			ps := params[tool.Name]
			for p := range tool.InputSchema.Properties {
				if !slices.Contains(ps, p) {
					ps = append(ps, p)
				}
			}
			params[tool.Name] = ps
		}
	}
	return params
}

var (
	refHeadingRE = regexp.MustCompile("^#{2,4} (.+)$")
	refParamRE   = regexp.MustCompile("^\\| `([^`]+)` \\|")
	readmeToolRE = regexp.MustCompile("`([a-z_]+)`") // a tool named in a table's first cell
)

// referenceParams returns the parameters the reference's table lists under
// each heading.
func referenceParams(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(referenceTools)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{}
	heading := ""
	for _, line := range strings.Split(string(b), "\n") {
		if m := refHeadingRE.FindStringSubmatch(line); m != nil {
			heading = m[1]
			params[heading] = []string{}
		} else if m := refParamRE.FindStringSubmatch(line); m != nil && heading != "" {
			params[heading] = append(params[heading], m[1])
		}
	}
	return params
}

// TestReferenceTools: docs/reference/tools.md has a section for every tool
// Boris offers in any configuration (as the golden tools/list files hold
// them), listing exactly the parameters the tool takes, and no section
// with a parameter table for a tool that does not exist.
func TestReferenceTools(t *testing.T) {
	golden, ref := goldenParams(t), referenceParams(t)
	for tool, want := range golden {
		got, ok := ref[tool]
		if !ok {
			t.Errorf("%s: no section for %s", referenceTools, tool)
			continue
		}
		slices.Sort(want)
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, want) {
			t.Errorf("%s, %s: parameters %v, want %v (the golden tools/list files)", referenceTools, tool, got, want)
		}
	}
	for heading, ps := range ref {
		if _, ok := golden[heading]; !ok && len(ps) > 0 && !strings.Contains(heading, " ") {
			t.Errorf("%s: section %s lists parameters %v, but no tool of that name exists", referenceTools, heading, ps)
		}
	}
}

// TestReadmeToolTable: the README's tool table names every tool Boris
// offers in any configuration (the golden tools/list files), so a newcomer
// finds each tool, and the file it lives in, from the landing page.
func TestReadmeToolTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n## Tools\n")
	if !ok {
		t.Fatal("README.md has no Tools section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	named := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range readmeToolRE.FindAllStringSubmatch(cells[0], -1) {
			named[m[1]] = true
		}
	}
	for tool := range goldenParams(t) {
		if !named[tool] {
			t.Errorf("README.md's tool table does not name %s", tool)
		}
	}
}
