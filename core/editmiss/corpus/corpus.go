// Package corpus provides a corpus of missed edits made from real source
// files: for each class of mistake an agent makes when it copies text
// into an edit (indentation, trailing whitespace, line endings,
// look-alike characters, escaping, a differing word, and mixtures), edit
// texts that no longer occur in their file, with the window they came
// from. The editmiss tests and the edit tools' tests measure how often
// the diagnosis names the window and the cause.
package corpus

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjkoo/boris/core/editmiss"
)

// Case is one missed edit.
type Case struct {
	Class string          // the mutation class
	Path  string          // the source file it was made from
	Data  []byte          // the file's contents
	Old   string          // the edit's text, which does not occur in Data
	First int             // the 1-based line the text was copied from
	Want  []editmiss.Kind // the causes the diagnosis must name
}

// Name identifies the case in test output.
func (c Case) Name() string { return fmt.Sprintf("%s %s:%d", c.Class, filepath.Base(c.Path), c.First) }

// mutation makes an edit's text from the lines it copies, or reports
// that it does not apply to them.
type mutation struct {
	kind editmiss.Kind
	fn   func(r *rand.Rand, lines []string) ([]string, bool)
}

// classes are the corpus's classes: each applies its mutations in order.
var classes = []struct {
	name string
	muts []mutation
	join string // how the lines are joined: "" is "\n"
}{
	{"tabs-to-spaces", []mutation{{editmiss.Indentation, tabsToSpaces}}, ""},
	{"indent-depth", []mutation{{editmiss.Indentation, deeper}}, ""},
	{"trailing-space", []mutation{{editmiss.TrailingSpace, trailing}}, ""},
	{"crlf", []mutation{{editmiss.LineEndings, multiLine}}, "\r\n"},
	{"look-alike", []mutation{{editmiss.LookAlike, typographic}}, ""},
	{"escaping", []mutation{{editmiss.Escaping, multiLine}}, `\n`},
	{"differs", []mutation{{editmiss.Differs, typo}}, ""},
	{"mixed-indent-typo", []mutation{{editmiss.Indentation, tabsToSpaces}, {editmiss.Differs, typo}}, ""},
	{"mixed-trailing-quote", []mutation{{editmiss.TrailingSpace, trailing}, {editmiss.LookAlike, typographic}}, ""},
}

// Classes names the corpus's classes.
func Classes() []string {
	var names []string
	for _, c := range classes {
		names = append(names, c.name)
	}
	return names
}

// Sources lists the Go files under dirs of root (GOROOT/src), sorted,
// leaving out test data and files over 200 KB.
func Sources(root string, dirs ...string) ([]string, error) {
	var files []string
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case e.IsDir() && e.Name() == "testdata":
				return filepath.SkipDir
			case e.IsDir() || !strings.HasSuffix(p, ".go"):
				return nil
			}
			if fi, err := e.Info(); err == nil && fi.Size() > 2<<10 && fi.Size() < 200<<10 {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list sources under %s: %w", d, err)
		}
	}
	slices.Sort(files)
	return files, nil
}

// Make builds perClass cases of every class from files, deterministically
// for a seed.
func Make(files []string, perClass int, seed uint64) ([]Case, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Case
	for _, cl := range classes {
		for n, tries := 0, 0; n < perClass; tries++ {
			if tries > perClass*200 {
				return nil, fmt.Errorf("class %s: only %d cases from %d files", cl.name, n, len(files))
			}
			path := files[r.IntN(len(files))]
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("read source: %w", err)
			}
			if c, ok := makeCase(r, path, data, cl.muts, cl.join); ok {
				c.Class = cl.name
				out = append(out, c)
				n++
			}
		}
	}
	return out, nil
}

// makeCase copies a few lines of data and mutates them into a miss.
func makeCase(r *rand.Rand, path string, data []byte, muts []mutation, join string) (Case, bool) {
	lines := strings.Split(string(data), "\n")
	start := r.IntN(len(lines))
	n := 1 + r.IntN(6)
	if start+n > len(lines) {
		return Case{}, false
	}
	orig := lines[start : start+n]
	if !distinctive(data, orig) {
		return Case{}, false
	}
	c := Case{Path: path, Data: data, First: start + 1}
	mut := slices.Clone(orig)
	for _, m := range muts {
		var ok bool
		if mut, ok = m.fn(r, mut); !ok {
			return Case{}, false
		}
		c.Want = append(c.Want, m.kind)
	}
	if join == "" {
		join = "\n"
	}
	c.Old = strings.Join(mut, join)
	if r.IntN(2) == 0 && join != `\n` {
		c.Old += join
	}
	crlf := strings.ReplaceAll(c.Old, "\n", "\r\n")
	if bytes.Contains(data, []byte(c.Old)) || bytes.Contains(data, []byte(crlf)) {
		return Case{}, false
	}
	return c, true
}

// distinctive reports whether lines occur once in data, begin and end
// with text, and hold enough of it to be told from other lines.
func distinctive(data []byte, lines []string) bool {
	text := strings.Join(lines, "\n")
	if strings.TrimSpace(lines[0]) == "" || strings.TrimSpace(lines[len(lines)-1]) == "" || strings.Contains(text, "\r") {
		return false
	}
	letters := len(strings.Join(strings.Fields(text), ""))
	return letters >= 30 && bytes.Count(data, []byte(text)) == 1
}

// GoSources lists the Go files the corpus is made from: a few packages
// of the Go installation's own sources (go env GOROOT).
func GoSources() ([]string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("find Go's sources (go env GOROOT): %w", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(filepath.Join(root, "strings")); err != nil {
		return nil, fmt.Errorf("find Go's sources: %w", err)
	}
	return Sources(root, "bufio", "encoding/json", "fmt", "go/parser", "net/http", "strings", "text/template")
}
