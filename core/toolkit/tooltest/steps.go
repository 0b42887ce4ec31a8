package tooltest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Step is one call of a scenario and what its result says. In Args'
// strings, Want and Not, $DIR is the scenario's directory and each of the
// Runner's captures its latest value.
type Step struct {
	Tool    string         // a tool's name, or Outside
	Args    map[string]any // the call's arguments; for Outside, path and content
	IsError bool           // whether the result is an error
	Want    string         // in the result's text
	Not     string         // if set, not in the result's text
}

// Outside is the Tool of a step that writes Args' content to Args' path
// (relative to the directory) without any tool, as an editor or a
// formatter would: what the tools must notice.
const Outside = "!outside"

// Absent, as a file's contents in CheckFiles, says that the file must not
// exist.
const Absent = "\x00absent"

// Runner calls scenarios' steps through a real client.
type Runner struct {
	Client *mcp.ClientSession
	Dir    string // what $DIR stands for
	// Captures are placeholders (such as "$TASK") whose value is the first
	// group of their pattern in the latest result it matched.
	Captures map[string]*regexp.Regexp
}

// Run calls each step in order and checks its result, reporting every
// step that differs.
func (r Runner) Run(t testing.TB, steps []Step) {
	t.Helper()
	vars := map[string]string{}
	for name := range r.Captures {
		vars[name] = name
	}
	for i, st := range steps {
		sub := r.replacer(vars)
		args := substitute(st.Args, sub)
		if st.Tool == Outside {
			WriteFiles(t, r.Dir, map[string]string{args["path"].(string): args["content"].(string)})
			continue
		}
		res := Call(t, r.Client, st.Tool, args)
		text := Text(res)
		for name, re := range r.Captures {
			if m := re.FindStringSubmatch(text); m != nil {
				vars[name] = m[1]
			}
		}
		if want := sub.Replace(st.Want); res.IsError != st.IsError || !strings.Contains(text, want) {
			t.Errorf("step %d: %s %s: got isError=%v %q; want isError=%v with %q", i, st.Tool, short(args), res.IsError, text, st.IsError, want)
		}
		if not := sub.Replace(st.Not); st.Not != "" && strings.Contains(text, not) {
			t.Errorf("step %d: %s %s: got %q, want no %q", i, st.Tool, short(args), text, not)
		}
	}
}

// short renders a step's arguments for a message, at most 300 bytes of
// them.
func short(args map[string]any) string {
	s := fmt.Sprint(args)
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// replacer substitutes $DIR and the captures' values.
func (r Runner) replacer(vars map[string]string) *strings.Replacer {
	pairs := []string{"$DIR", r.Dir}
	for name, v := range vars {
		pairs = append(pairs, name, v)
	}
	return strings.NewReplacer(pairs...)
}

// substitute returns args with every string's placeholders replaced, in
// lists of strings too.
func substitute(args map[string]any, r *strings.Replacer) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		switch v := v.(type) {
		case string:
			out[k] = r.Replace(v)
		case []string:
			s := make([]string, len(v))
			for i := range v {
				s[i] = r.Replace(v[i])
			}
			out[k] = s
		default:
			out[k] = v
		}
	}
	return out
}

// WriteFiles writes files (relative path: contents) under dir, making
// their directories.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// CheckFiles checks that each file (relative path under dir) holds what
// want says, or is missing where want says Absent.
func CheckFiles(tb testing.TB, dir string, want map[string]string) {
	tb.Helper()
	for rel, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		switch {
		case content == Absent && !errors.Is(err, fs.ErrNotExist):
			tb.Errorf("%s: got %q, %v; want no such file", rel, got, err)
		case content != Absent && (err != nil || string(got) != content):
			tb.Errorf("%s: got %q, %v; want %q", rel, got, err, content)
		}
	}
}
