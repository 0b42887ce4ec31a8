package extension

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Completion is one completion provider: a script registered in
// server.d/register.json (mcp-bash-framework's docs/COMPLETION.md). Its
// name is the prompt's (ref/prompt) or the resource's or template's
// (ref/resource) whose arguments it completes.
type Completion struct {
	Name    string
	Exec    string // the script (real path, inside Root)
	Timeout int    // seconds; 0: the core's default
	Root    string
	Meta    string // register.json, for messages
}

// completionEntry is one element of register.json's "completions".
type completionEntry struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	TimeoutSecs *int   `json:"timeoutSecs"`
}

// MaxCompletions is the most values one completion/complete returns, as
// MCP allows.
const MaxCompletions = 100

// LoadCompletions reads the completions every directory in dirs registers
// in server.d/register.json. A register.json that is not what the
// framework accepts (see register.go) loads nothing from its directory;
// an entry with no name, a duplicate name, or a script that is missing,
// neither executable nor a script (RunsThroughBash), or outside the
// directory is skipped alone.
func LoadCompletions(dirs []string) ([]*Completion, []Skipped, error) {
	var out []*Completion
	var skipped []Skipped
	seen := map[string]string{}
	roots, err := realDirs(dirs)
	if err != nil {
		return nil, nil, err
	}
	for _, root := range roots {
		reg, err := loadRegister(root)
		if err != nil {
			skipped = append(skipped, registerError(root, err, "completions"))
			continue
		}
		if reg == nil {
			continue
		}
		for i, raw := range reg.list("completions") {
			c, err := loadCompletion(root, reg.path, raw)
			switch {
			case err != nil:
				skipped = append(skipped, Skipped{reg.path, fmt.Sprintf("%s: %v", at("completions", i, ""), err)})
			case seen[c.Name] != "":
				skipped = append(skipped, Skipped{reg.path, fmt.Sprintf("%s: name %q is already defined by %s", at("completions", i, ""), c.Name, seen[c.Name])})
			default:
				seen[c.Name] = reg.path
				out = append(out, c)
			}
		}
	}
	return out, skipped, nil
}

// loadCompletion checks one entry: its script must be an executable file
// inside root ("path" is relative to the extension directory).
func loadCompletion(root, reg string, raw json.RawMessage) (*Completion, error) {
	var e completionEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("malformed entry: %v", err)
	}
	if e.Name == "" {
		return nil, errors.New("no name")
	}
	if e.Path == "" || filepath.IsAbs(e.Path) {
		return nil, fmt.Errorf("path %q: want a script path relative to the extension directory", e.Path)
	}
	c := &Completion{Name: e.Name, Root: root, Meta: reg}
	if e.TimeoutSecs != nil {
		if *e.TimeoutSecs < 1 || *e.TimeoutSecs > MaxTimeout {
			return nil, fmt.Errorf("timeoutSecs %d: want 1 to %d", *e.TimeoutSecs, MaxTimeout)
		}
		c.Timeout = *e.TimeoutSecs
	}
	p := filepath.Join(root, e.Path)
	if !within(root, p) {
		return nil, fmt.Errorf("path %q %v", e.Path, ErrOutside)
	}
	real, err := inside(root, p)
	if err != nil {
		return nil, err
	}
	if _, err := RunsThroughBash(real); err != nil {
		return nil, fmt.Errorf("%s: %v", e.Path, err)
	}
	c.Exec = real
	return c, nil
}

// CompletionOutput parses what a completion script printed: a JSON array
// of strings, or an object with "suggestions" (strings) and "hasMore". At
// most MaxCompletions values are kept; more means hasMore.
func CompletionOutput(stdout string) (values []string, hasMore bool, err error) {
	out := strings.TrimSpace(stdout)
	if out == "" {
		return nil, false, nil
	}
	if strings.HasPrefix(out, "[") {
		err = json.Unmarshal([]byte(out), &values)
	} else {
		var obj struct {
			Suggestions []string `json:"suggestions"`
			HasMore     bool     `json:"hasMore"`
		}
		err = json.Unmarshal([]byte(out), &obj)
		values, hasMore = obj.Suggestions, obj.HasMore
	}
	if err != nil {
		return nil, false, fmt.Errorf("want a JSON array of strings or {\"suggestions\": [...]}: %v", err)
	}
	if len(values) > MaxCompletions {
		values, hasMore = values[:MaxCompletions], true
	}
	return values, hasMore, nil
}
