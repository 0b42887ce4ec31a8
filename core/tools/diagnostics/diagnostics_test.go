package diagnostics

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// servers stands in for the language servers: it records what it was
// asked and answers problems, or refuses a file no server takes.
type servers struct{ asked []string }

func (s *servers) Current(path string, wait time.Duration) (string, error) {
	s.asked = append(s.asked, path)
	if strings.HasSuffix(path, ".txt") {
		return "", errors.New("no language server for " + filepath.Base(path))
	}
	return "problems of " + path, nil
}

// deps are the shared test dependencies with servers.
type deps struct {
	*tooltest.Deps
	s *servers
}

func (d deps) Diagnostics() Source { return d.s }

// TestTool: the path is resolved against the working directory through
// the policy before a server is asked; no path asks for every file; a
// path the policy refuses never reaches the servers; a server's refusal
// is the tool's, with its code.
func TestTool(t *testing.T) {
	d := deps{tooltest.New(t, "**/.env"), &servers{}}
	cs := tooltest.Connect(t, Tools(d))
	dir := d.Dir()
	for _, tt := range []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
		asked   string // what the servers were asked; "-" for nothing
	}{
		{"relative path", map[string]any{"path": "main.go"}, false, "problems of " + filepath.Join(dir, "main.go"), filepath.Join(dir, "main.go")},
		{"every file", nil, false, "problems of ", ""},
		{"outside the allowed directory", map[string]any{"path": "/etc/passwd.go"}, true, "[ACCESS_DENIED]", "-"},
		{"climbing out", map[string]any{"path": "../../x.go"}, true, "[ACCESS_DENIED]", "-"},
		{"denied", map[string]any{"path": ".env"}, true, "[ACCESS_DENIED]", "-"},
		{"no server for it", map[string]any{"path": "notes.txt"}, true, "[INVALID_INPUT] no language server for notes.txt", filepath.Join(dir, "notes.txt")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d.s.asked = nil
			res := tooltest.Call(t, cs, "diagnostics", tt.args)
			if got := tooltest.Text(res); res.IsError != tt.isError || !strings.Contains(got, tt.want) {
				t.Errorf("got isError=%v %q, want isError=%v and %q", res.IsError, got, tt.isError, tt.want)
			}
			switch {
			case tt.asked == "-" && len(d.s.asked) > 0:
				t.Errorf("the servers were asked %q, want nothing", d.s.asked)
			case tt.asked != "-" && (len(d.s.asked) != 1 || d.s.asked[0] != tt.asked):
				t.Errorf("the servers were asked %q, want %q", d.s.asked, tt.asked)
			}
		})
	}
}
