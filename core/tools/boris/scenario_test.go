package boris

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// absent, as a file's expected contents, says the file must not exist.
const absent = "\x00absent"

// step is one call of a scenario and what its result says. In args and in
// want, $DIR is the test's directory and $TASK the task_id the latest
// background bash returned.
type step struct {
	tool    string         // a tool's name, or outside to change a file as no tool would
	args    map[string]any // for outside: path and content
	isError bool
	want    string // in the result's text
	not     string // if set, not in the result's text
}

// outside is the step that writes args' content to args' path without
// Boris, as an editor or a formatter would.
const outside = "!outside"

// scenario is a sequence of calls to the toolset over a real client, in a
// directory holding files at first, and the files it leaves.
type scenario struct {
	name  string
	opt   func(*Options)                 // changes the default options
	files map[string]string              // relative path: contents, written first
	setup func(t *testing.T, dir string) // anything files cannot say (links, modes)
	steps []step
	after map[string]string // relative path: contents after the last step (or absent)
}

// defaultOptions are the toolset's options as boris's defaults set them.
func defaultOptions() Options {
	return Options{MaxFileSize: 10 << 20, Timeout: 120, BackgroundTaskLimit: 10, Log: slog.New(slog.DiscardHandler)}
}

// taskID finds the task_id of a background bash's result.
var taskID = regexp.MustCompile(`task_id: (task_\S+)`)

// runScenarios runs each scenario in a directory of its own, denying
// **/.env as an operator's --deny would, and checks every step's result
// and the files it leaves.
func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			d := tooltest.New(t, "**/.env")
			dir := d.Dir()
			writeFiles(t, dir, sc.files)
			if sc.setup != nil {
				sc.setup(t, dir)
			}
			opt := defaultOptions()
			if sc.opt != nil {
				sc.opt(&opt)
			}
			cs := tooltest.Connect(t, Tools(d, opt))
			task := "$TASK"
			for i, st := range sc.steps {
				sub := strings.NewReplacer("$DIR", dir, "$TASK", task)
				args := substitute(st.args, sub)
				if st.tool == outside {
					writeFiles(t, dir, map[string]string{args["path"].(string): args["content"].(string)})
					continue
				}
				res := tooltest.Call(t, cs, st.tool, args)
				text := tooltest.Text(res)
				if m := taskID.FindStringSubmatch(text); m != nil {
					task = m[1]
				}
				if want := sub.Replace(st.want); res.IsError != st.isError || !strings.Contains(text, want) {
					t.Errorf("step %d: %s %v: got isError=%v %q; want isError=%v with %q", i, st.tool, args, res.IsError, text, st.isError, want)
				}
				if not := sub.Replace(st.not); st.not != "" && strings.Contains(text, not) {
					t.Errorf("step %d: %s %v: got %q, want no %q", i, st.tool, args, text, not)
				}
			}
			checkFiles(t, dir, sc.after)
		})
	}
}

// substitute returns args with every string's placeholders replaced.
func substitute(args map[string]any, r *strings.Replacer) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = r.Replace(s)
		}
		out[k] = v
	}
	return out
}

// writeFiles writes files (relative path: contents) under dir, making
// their directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFiles checks that every file under dir holds what want says.
func checkFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for rel, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		switch {
		case content == absent && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s: got %q, %v; want no such file", rel, got, err)
		case content != absent && (err != nil || string(got) != content):
			t.Errorf("%s: got %q, %v; want %q", rel, got, err, content)
		}
	}
}
