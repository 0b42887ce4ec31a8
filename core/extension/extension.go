// Package extension loads Boris's extensions (docs/reference/core.md#extensions): directories laid
// out as mcp-bash-framework projects, whose tools are executables with a
// JSON metadata file beside them. The core runs those executables like
// bash commands; this package finds and checks them.
package extension

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one extension tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	Input       *jsonschema.Schema // never nil: an object schema
	Output      *jsonschema.Schema // nil: none declared
	Timeout     int                // seconds; 0: the core's default
	Annotations *mcp.ToolAnnotations
	Root        string // the extension directory (real path)
	Exec        string // the executable (real path, inside Root)
	Meta        string // the metadata file, for messages
}

// meta is tool.meta.json as the framework documents it.
type meta struct {
	Name         string               `json:"name"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	TimeoutSecs  *int                 `json:"timeoutSecs"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`

	// In register.json only: the program, relative to tools/, and the
	// framework's older name for inputSchema.
	Path      string          `json:"path"`
	Arguments json.RawMessage `json:"arguments"`
}

// MaxMetaSize bounds a metadata file.
const MaxMetaSize = 1 << 20

// MaxTimeout bounds timeoutSecs, as the bash tool's timeout is bounded.
const MaxTimeout = 600

// validToolName is what MCP allows in a tool name.
func validToolName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for _, c := range []byte(name) {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// Skipped is an extension entry that was not loaded, and why.
type Skipped struct {
	Path   string
	Reason string
}

// Load reads the tools of every directory in dirs, in order: those its
// server.d/register.json declares when it has a "tools" key, else those
// under tools/*/. An entry that cannot be used (unreadable or malformed
// metadata, no executable, a name already taken by a built-in tool
// (taken) or by an earlier entry, a path leading outside its directory)
// is skipped and reported; the rest load. A directory whose register.json
// is invalid loads no tool. A directory that does not exist is an error.
func Load(dirs []string, taken func(name string) bool) ([]*Tool, []Skipped, error) {
	var tools []*Tool
	var skipped []Skipped
	seen := map[string]string{}
	roots, err := realDirs(dirs)
	if err != nil {
		return nil, nil, err
	}
	for _, root := range roots {
		found, sk := dirTools(root)
		skipped = append(skipped, sk...)
		for _, f := range found {
			t, m := f.tool, f.where
			switch {
			case f.err != nil:
				skipped = append(skipped, Skipped{m, f.err.Error()})
			case taken != nil && taken(t.Name):
				skipped = append(skipped, Skipped{m, fmt.Sprintf("tool name %q is a built-in tool's", t.Name)})
			case seen[t.Name] != "":
				skipped = append(skipped, Skipped{m, fmt.Sprintf("tool name %q is already defined by %s", t.Name, seen[t.Name])})
			default:
				seen[t.Name] = m
				tools = append(tools, t)
			}
		}
	}
	return tools, skipped, nil
}

// found is one tool entry of a directory, loaded or not. where names it
// in messages: its metadata file, or register.json and the entry.
type found struct {
	tool  *Tool
	where string
	err   error
}

// dirTools reads root's tool entries: register.json's "tools" when it
// declares them (the framework then does not scan), else tools/*/.
func dirTools(root string) ([]found, []Skipped) {
	reg, err := loadRegister(root)
	if err != nil {
		return nil, []Skipped{registerError(root, err, "tools")}
	}
	var out []found
	if reg.declared("tools") {
		for i, raw := range reg.list("tools") {
			t, name, err := declaredTool(root, reg.path, raw)
			w := reg.path + ": " + at("tools", i, name)
			if t != nil {
				t.Meta = w
			}
			out = append(out, found{t, w, err})
		}
		return out, nil
	}
	metas, _ := filepath.Glob(filepath.Join(root, "tools", "*", "tool.meta.json"))
	sort.Strings(metas)
	for _, m := range metas {
		t, err := loadTool(root, m)
		out = append(out, found{t, m, err})
	}
	return out, nil
}

// Log reports skipped entries, one line each.
func Log(log *slog.Logger, skipped []Skipped) {
	for _, s := range skipped {
		log.Warn("extension skipped", "file", s.Path, "reason", s.Reason)
	}
}

// realDirs resolves every extension directory, failing on the first that
// is not one: what each loader starts from.
func realDirs(dirs []string) ([]string, error) {
	roots := make([]string, len(dirs))
	for i, dir := range dirs {
		root, err := realDir(dir)
		if err != nil {
			return nil, fmt.Errorf("extension directory %q: %w", dir, err)
		}
		roots[i] = root
	}
	return roots, nil
}

func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", errors.New("not a directory")
	}
	return real, nil
}

// loadTool reads and checks one tool.meta.json under root.
func loadTool(root, metaPath string) (*Tool, error) {
	real, err := inside(root, metaPath)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if fi.Size() > MaxMetaSize {
		return nil, fmt.Errorf("metadata is %d bytes, over the %d limit", fi.Size(), MaxMetaSize)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return nil, err
	}
	var m meta
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("malformed metadata: %v", err)
	}
	t, err := m.tool(root, metaPath)
	if err != nil {
		return nil, err
	}
	if t.Exec, err = executable(root, filepath.Dir(metaPath)); err != nil {
		return nil, err
	}
	return t, nil
}

// declaredTool checks one entry of register.json's "tools": the metadata
// of a tool.meta.json plus "path", the program, relative to tools/ (where
// the framework runs it from; lib/tools.sh refuses one whose real path
// leaves tools/). It returns the entry's name for messages even when the
// entry is refused.
func declaredTool(root, reg string, raw json.RawMessage) (*Tool, string, error) {
	var m meta
	if err := decodeEntry(raw, &m); err != nil {
		return nil, "", err
	}
	if len(m.InputSchema) == 0 || string(m.InputSchema) == "null" {
		m.InputSchema = m.Arguments // the framework's older name for it
	}
	t, err := m.tool(root, reg)
	if err != nil {
		return nil, m.Name, err
	}
	exec, err := declaredFile(root, filepath.Join(root, "tools"), m.Path)
	if err != nil {
		return nil, m.Name, err
	}
	if _, err := RunsThroughBash(exec); err != nil {
		return nil, m.Name, fmt.Errorf("%s: %v", m.Path, err)
	}
	t.Exec = exec
	return t, m.Name, nil
}

// tool checks the metadata and makes the tool it describes, without its
// program.
func (m *meta) tool(root, where string) (*Tool, error) {
	if !validToolName(m.Name) {
		return nil, fmt.Errorf("tool name %q: want 1 to 128 letters, digits, '_', '-' or '.'", m.Name)
	}
	t := &Tool{Name: m.Name, Title: m.Title, Description: m.Description, Annotations: m.Annotations, Root: root, Meta: where}
	var err error
	if t.Input, err = schema(m.InputSchema, true); err != nil {
		return nil, fmt.Errorf("inputSchema: %v", err)
	}
	if t.Output, err = schema(m.OutputSchema, false); err != nil {
		return nil, fmt.Errorf("outputSchema: %v", err)
	}
	if m.TimeoutSecs != nil {
		if *m.TimeoutSecs < 1 || *m.TimeoutSecs > MaxTimeout {
			return nil, fmt.Errorf("timeoutSecs %d: want 1 to %d", *m.TimeoutSecs, MaxTimeout)
		}
		t.Timeout = *m.TimeoutSecs
	}
	return t, nil
}

// schema parses a schema; an absent input schema is an empty object one.
// Both must describe objects, as MCP requires.
func schema(raw json.RawMessage, input bool) (*jsonschema.Schema, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if !input {
			return nil, nil
		}
		return &jsonschema.Schema{Type: "object"}, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("type %q: want \"object\"", s.Type)
	}
	if _, err := s.Resolve(nil); err != nil {
		return nil, err
	}
	return &s, nil
}

// executable finds the tool's program in dir: tool.sh, else the one
// file named tool or tool.<anything>. It must be a regular file that the
// framework would run (RunsThroughBash) whose real path lies inside root.
func executable(root, dir string) (string, error) {
	candidates := []string{filepath.Join(dir, "tool.sh")}
	if _, err := os.Lstat(candidates[0]); err != nil {
		more, _ := filepath.Glob(filepath.Join(dir, "tool*"))
		candidates = nil
		for _, c := range more {
			base := filepath.Base(c)
			if (base == "tool" || strings.HasPrefix(base, "tool.")) && base != "tool.meta.json" {
				candidates = append(candidates, c)
			}
		}
		if len(candidates) != 1 {
			return "", fmt.Errorf("no executable: want %s (or one file named tool or tool.<ext>)", filepath.Join(dir, "tool.sh"))
		}
	}
	real, err := inside(root, candidates[0])
	if err != nil {
		return "", err
	}
	if _, err := RunsThroughBash(real); err != nil {
		return "", fmt.Errorf("%s: %v", candidates[0], err)
	}
	return real, nil
}

// inside resolves p's symlinks and refuses a result outside root.
func inside(root, p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leads outside the extension directory (to %s)", p, real)
	}
	return real, nil
}

// Fingerprint summarises what the loaders would read from dirs (every
// tool's metadata and program, the entries of tools/ (programs
// register.json names), the files of resources/, prompts/,
// completions/ and providers/, server.d/register.json: path, size, mode, modification
// time), so a
// caller polling for changes reloads only when something changed. Its
// cost is one directory listing and a few stats per tool.
func Fingerprint(dirs []string) string {
	h := sha256.New()
	for _, dir := range dirs {
		root, err := realDir(dir)
		if err != nil {
			fmt.Fprintf(h, "%s: %v\n", dir, err)
			continue
		}
		var files []string
		for _, pat := range []string{"tools/*", "tools/*/tool*", "resources/*", "prompts/*", "completions/*", "providers/*", "server.d/register.json"} {
			more, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
			files = append(files, more...)
		}
		sort.Strings(files)
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				fmt.Fprintf(h, "%s %d %v %d\n", f, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
