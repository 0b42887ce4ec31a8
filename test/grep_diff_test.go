package test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The differential tests run boris's grep and ripgrep over one generated
// tree and require the same answer, so no optimisation of the search can
// change a result unnoticed. rg runs with the flags that make its rules
// boris's (as test/bench/grep does), --crlf (boris matches a line without
// its "\r\n" terminator) and --sort path; the tree's modification times
// are set so that boris's newest-first order is rg's path order. The
// outputs are then compared as text. boris's include filter is given to rg
// as a file type (--type-add), not a -g glob: rg's -g patterns override
// .gitignore rules, boris's include does not.

// rgDiffRules makes rg skip and search what boris does.
var rgDiffRules = []string{"--no-config", "--no-require-git", "--hidden", "-g", "!.git",
	"--no-ignore-dot", "--no-ignore-global", "--max-filesize", "10M", "--crlf", "--sort", "path"}

// diffCorpus is the generated tree: unicode and case folding (Kelvin sign,
// long s, accented capitals), words and their boundaries, alternations,
// CRLF endings, context runs that merge and that do not, multiline text,
// a binary file, nested .gitignore rules with negations, a hidden
// directory, a .git directory and a file big enough for the vector scans.
func diffCorpus() map[string]string {
	var ctx, big strings.Builder
	for i := 1; i <= 60; i++ {
		switch i {
		case 5, 8, 20, 21, 40, 58:
			fmt.Fprintf(&ctx, "line %d has the needle\n", i)
		default:
			fmt.Fprintf(&ctx, "line %d\n", i)
		}
	}
	for i := range 6000 {
		switch {
		case i%997 == 0:
			fmt.Fprintf(&big, "%d\tctx, cancel := context.WithDeadline(parent, DEADLINE) // needle\n", i)
		case i%1499 == 0:
			fmt.Fprintf(&big, "%d\tjson.MarshalIndent(v, \"\", \"  \") ſtop\n", i)
		default:
			fmt.Fprintf(&big, "%d\tif err := r.ReadFrom(buf); err != nil { return fmt.Errorf(\"read deadlines: %%w\", err) }\n", i)
		}
	}
	return map[string]string{
		".git/HEAD":        "ref: refs/heads/main needle\n",
		".gitignore":       "*.log\n!keep.log\nbuild/\n/top.txt\n**/gen/\n",
		"sub/.gitignore":   "!x.log\n*.tmp\n",
		"keep.log":         "needle kept\n",
		"x.log":            "needle ignored\n",
		"sub/x.log":        "needle unignored below\n",
		"sub/z.log":        "needle ignored below\n",
		"build/out.txt":    "needle built\n",
		"top.txt":          "needle at the top\n",
		"sub/top.txt":      "needle not at the top\n",
		"sub/y.tmp":        "needle tmp\n",
		"sub/deep/gen/g.c": "needle generated\n",
		".hidden/h.txt":    "needle hidden\n",
		"bin.dat":          "\x00\x01needle\n",
		"unicode.txt": "the Kelvin \u212a unit\nkelvin in lower case\nſtop sign\nSTOP\nstop\n" +
			"ÉCOLE école Ecole\nΑλφα βήτα ΓΆΜΜΑ\nnaïve café\nstraße STRASSE\n\n\nend of unicode\n",
		"code/main.go": "package main\n\nfunc main() {\n\td := deadline()\n\t// Deadline: the DEADLINE, not deadlines\n" +
			"\tb, _ := json.Marshal(v)\n\tjson.MarshalIndent(v)\n\tjson.Unmarshal(b, &v)\n\tx.MarshalJSON()\n" +
			"\tfoo(bar(baz))\n\tdate := \"2024-01-31\"\n}\n",
		"crlf.txt":  "first needle\r\nsecond\r\nthird needle\r\n\r\nneedle\r\n",
		"ctx.txt":   ctx.String(),
		"multi.txt": "begin\nmiddle\nend\nbegin again\nend\n",
		"big.go":    big.String(),
		"noeol.txt": "last line needle without newline",
	}
}

// grepDiffCase is one search asked of both tools.
type grepDiffCase struct {
	name string
	args map[string]any // boris grep arguments (head_limit 0 is added)
	rg   []string       // rg arguments after rgDiffRules
}

var grepDiffCases = []grepDiffCase{
	{"literal files", map[string]any{"pattern": "needle"}, []string{"-l", "-e", "needle"}},
	{"literal content", map[string]any{"pattern": "needle", "output_mode": "content"}, []string{"-n", "-e", "needle"}},
	{"literal count", map[string]any{"pattern": "needle", "output_mode": "count"}, []string{"-c", "-e", "needle"}},
	{"case-insensitive word", map[string]any{"pattern": `\bdeadline\b`, "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", `\bdeadline\b`}},
	{"case-insensitive substring", map[string]any{"pattern": "deadline", "case_insensitive": true, "output_mode": "count"},
		[]string{"-c", "-i", "-e", "deadline"}},
	{"kelvin sign folds to k", map[string]any{"pattern": "kelvin|\u212a", "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", "kelvin|\u212a"}},
	{"k folds to the kelvin sign", map[string]any{"pattern": "the k", "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", "the k"}},
	{"long s folds to s", map[string]any{"pattern": "stop", "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", "stop"}},
	{"non-ASCII case folding", map[string]any{"pattern": "école|γάμμα|STRASSE", "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", "école|γάμμα|STRASSE"}},
	{"non-ASCII literal", map[string]any{"pattern": "café", "output_mode": "content"}, []string{"-n", "-e", "café"}},
	{"greek class", map[string]any{"pattern": "[α-ω]+ [Α-Ω]", "output_mode": "content"}, []string{"-n", "-e", "[α-ω]+ [Α-Ω]"}},
	{"alternation", map[string]any{"pattern": "Marshal(Indent|JSON)|Unmarshal", "output_mode": "content"},
		[]string{"-n", "-e", "Marshal(Indent|JSON)|Unmarshal"}},
	{"alternation of literals", map[string]any{"pattern": "foo|bar|baz|needle", "output_mode": "count"},
		[]string{"-c", "-e", "foo|bar|baz|needle"}},
	{"case-insensitive alternation", map[string]any{"pattern": "MARSHAL|withdeadline", "case_insensitive": true, "output_mode": "content"},
		[]string{"-n", "-i", "-e", "MARSHAL|withdeadline"}},
	{"anchors", map[string]any{"pattern": "^line \\d+$|needle$", "output_mode": "count"}, []string{"-c", "-e", "^line \\d+$|needle$"}},
	{"no literal", map[string]any{"pattern": `\d{4}-\d{2}-\d{2}`, "output_mode": "content"}, []string{"-n", "-e", `\d{4}-\d{2}-\d{2}`}},
	{"empty lines", map[string]any{"pattern": "^$", "output_mode": "count"}, []string{"-c", "-e", "^$"}},
	{"context after", map[string]any{"pattern": "needle", "output_mode": "content", "context_after": 2, "include": "ctx.txt"},
		[]string{"-n", "-A", "2", "--type-add", "ctx:ctx.txt", "-t", "ctx", "-e", "needle"}},
	{"context before", map[string]any{"pattern": "needle", "output_mode": "content", "context_before": 3, "include": "*.txt"},
		[]string{"-n", "-B", "3", "--type-add", "txt:*.txt", "-t", "txt", "-e", "needle"}},
	{"context both", map[string]any{"pattern": "needle|begin", "output_mode": "content", "context": 2, "include": "*.txt"},
		[]string{"-n", "-C", "2", "--type-add", "txt:*.txt", "-t", "txt", "-e", "needle|begin"}},
	{"multiline content", map[string]any{"pattern": `begin.*?end`, "multiline": true, "output_mode": "content"},
		[]string{"-n", "-U", "--multiline-dotall", "-e", `begin.*?end`}},
	{"multiline newline", map[string]any{"pattern": `end\n`, "multiline": true, "output_mode": "content"},
		[]string{"-n", "-U", "--multiline-dotall", "-e", `end\n`}},
	{"multiline files", map[string]any{"pattern": `middle\nend`, "multiline": true}, []string{"-l", "-U", "-e", `middle\nend`}},
}

// TestGrepMatchesRipgrep runs every case on both tools and compares.
func TestGrepMatchesRipgrep(t *testing.T) {
	rg := ensureRipgrep(t)
	dir := writeDiffCorpus(t, rg, diffCorpus())
	c := startCore(t, "--workdir", dir)
	for _, tc := range grepDiffCases {
		t.Run(tc.name, func(t *testing.T) {
			want := runRipgrep(t, rg, dir, tc.rg)
			got := borisGrepBody(t, c, dir, tc.args)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("grep %v: boris and rg %q differ (-rg +boris):\n%s", tc.args, tc.rg, diff)
			}
		})
	}
}

// TestGrepDeliberateDifferences asserts where boris knowingly answers
// otherwise than rg, so a change to either shows:
//   - binary files: boris looks for a NUL in the first 8 KB only (as git
//     does); rg skips a file with a NUL in any block it reads;
//   - \b: Go's RE2 word boundary is ASCII-only, so "é" is not a word
//     character to boris: "\bcafé\b" matches inside "cafés" (é, then a
//     word character) and not "café here" (é, then a space); rg's \b is
//     Unicode-aware and does the opposite.
func TestGrepDeliberateDifferences(t *testing.T) {
	rg := ensureRipgrep(t)
	dir := writeDiffCorpus(t, rg, map[string]string{
		"late-nul.txt": strings.Repeat("filler line\n", 1000) + "\x00 latenul\n",
		"cafe.txt":     "cafés here\ncafé here\n",
	})
	c := startCore(t, "--workdir", dir)
	if got, want := borisGrepBody(t, c, dir, map[string]any{"pattern": "latenul"}), "late-nul.txt\n"; got != want {
		t.Errorf("boris on a NUL after 8 KB: got %q, want %q (searched as text)", got, want)
	}
	if got := runRipgrep(t, rg, dir, []string{"-l", "-e", "latenul"}); got != "" {
		t.Errorf("rg on a NUL after 8 KB: got %q, want no match (binary)", got)
	}
	args := map[string]any{"pattern": `\bcafé\b`, "output_mode": "content"}
	if got, want := borisGrepBody(t, c, dir, args), "cafe.txt:1:cafés here\n"; got != want {
		t.Errorf("boris %v: got %q, want %q (ASCII word boundary)", args, got, want)
	}
	if got, want := runRipgrep(t, rg, dir, []string{"-n", "-e", `\bcafé\b`}), "cafe.txt:2:café here\n"; got != want {
		t.Errorf("rg -e '\\bcafé\\b': got %q, want %q (Unicode word boundary)", got, want)
	}
}

// writeDiffCorpus writes files into a new directory and gives them
// modification times in reverse order of rg's path order, so that boris's
// newest-first order is rg's --sort path order.
func writeDiffCorpus(t *testing.T, rg string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(realTempDir(t), "tree")
	for p, data := range files {
		writeFile(t, filepath.Join(dir, p), data)
	}
	order := strings.Split(strings.TrimSuffix(runRipgrep(t, rg, dir, []string{"--files", "-uu"}), "\n"), "\n")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range order {
		mt := base.Add(-time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(dir, p), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runRipgrep runs rg in dir with rgDiffRules and args and returns its
// output with "\r" dropped before each "\n" (boris shows lines without
// their terminator).
func runRipgrep(t *testing.T, rg, dir string, args []string) string {
	t.Helper()
	cmd := exec.Command(rg, append(slices.Clone(rgDiffRules), args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // no match
	}
	if err != nil {
		t.Fatalf("rg %q: %v\n%s", args, err, stderr.String())
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n")
}

// borisGrepBody runs boris's grep with all results and returns its
// entries, paths relative to dir, without the notes that follow them.
func borisGrepBody(t *testing.T, c *core, dir string, args map[string]any) string {
	t.Helper()
	a := map[string]any{"head_limit": 0}
	for k, v := range args {
		a[k] = v
	}
	body, _, _ := strings.Cut(c.ok("grep", a), "\n\n")
	if strings.HasPrefix(body, "No matches") {
		return ""
	}
	return strings.ReplaceAll(body+"\n", dir+string(filepath.Separator), "")
}

// ensureRipgrep returns the path of rg, installing Debian's ripgrep
// package with apt-get when it is missing ("apt-get update" and a second
// try if the first install fails, as on a machine with stale lists).
func ensureRipgrep(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("rg"); err == nil {
		return p
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		t.Skip("rg is not installed and apt-get is not available to install it: install ripgrep to run the differential grep tests")
	}
	install := func() error {
		cmd := exec.Command(apt, "install", "-y", "--no-install-recommends", "ripgrep")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get install ripgrep: %w\n%s", err, lastLines(out, 5))
		}
		return nil
	}
	t.Log("installing ripgrep with apt-get")
	if err := install(); err != nil {
		t.Logf("%v; running apt-get update and retrying", err)
		if out, err := exec.Command(apt, "update").CombinedOutput(); err != nil {
			t.Fatalf("apt-get update: %v\n%s", err, lastLines(out, 5))
		}
		if err := install(); err != nil {
			t.Fatal(err)
		}
	}
	p, err := exec.LookPath("rg")
	if err != nil {
		t.Fatal("apt-get installed ripgrep but rg is still not on PATH")
	}
	return p
}
