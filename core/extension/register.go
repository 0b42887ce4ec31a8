package extension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Declarative registration: server.d/register.json (mcp-bash-framework's
// docs/REGISTRY.md, "Declarative registration (server.d/register.json)").
// The framework's rules, as lib/registry.sh applies them:
//
//   - "version": 1; standard JSON, UTF-8 without a byte order mark; at most
//     1 MiB (MCPBASH_MAX_MANUAL_REGISTRY_BYTES' default); unknown top-level
//     keys are rejected (except "_meta"); each kind present must be an
//     array or null.
//   - A kind absent or null falls through to scanning the directories; a
//     kind present (even []) replaces the scan: "tools", "resources" and
//     "prompts" are exactly what register.json lists. "resourceTemplates"
//     is merged over the scanned templates instead, an entry replacing the
//     scanned template of its name (lib/resources.sh,
//     mcp_resources_templates_refresh_registry).
//   - An invalid register.json "fails loudly and does not fall back": every
//     kind of the project is in error. Boris loads nothing from that
//     directory and says why.
//
// Boris reads register.json as hostile input: a path an entry names must
// lie inside the directory the framework resolves it against (tools/,
// prompts/, resources/), before and after resolving symlinks, and the
// program a tool entry names must pass the same test as a scanned tool's.

// registerKinds are the top-level keys register.json may have.
var registerKinds = []string{"tools", "resources", "resourceTemplates", "prompts", "completions"}

// register is one directory's register.json, checked as the framework
// checks it. A kind is declared when its key is present and not null.
type register struct {
	path    string
	entries map[string][]json.RawMessage // by kind; declared kinds only
}

// declared reports whether register.json declares kind (and so replaces
// the scan of it).
func (r *register) declared(kind string) bool {
	if r == nil {
		return false
	}
	_, ok := r.entries[kind]
	return ok
}

// list is the entries of kind (none when register.json has no such key,
// or there is no register.json).
func (r *register) list(kind string) []json.RawMessage {
	if r == nil {
		return nil
	}
	return r.entries[kind]
}

// at names entry i of kind in messages: "tools[0]" or `tools[0] "name"`.
func at(kind string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s[%d]", kind, i)
	}
	return fmt.Sprintf("%s[%d] %q", kind, i, name)
}

// registerPath is where a directory's register.json is.
func registerPath(root string) string {
	return filepath.Join(root, "server.d", "register.json")
}

// loadRegister reads root's register.json: nil when there is none. An
// error means the file is not what the framework accepts, and the
// directory must load nothing.
func loadRegister(root string) (*register, error) {
	path := registerPath(root)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	real, err := inside(root, path)
	if err != nil {
		return nil, err
	}
	data, err := readBounded(root, real, MaxMetaSize)
	if err != nil {
		return nil, err
	}
	entries, err := parseRegister(data)
	if err != nil {
		return nil, err
	}
	return &register{path: path, entries: entries}, nil
}

// parseRegister checks register.json's bytes and returns the entries of
// each declared kind.
func parseRegister(data []byte) (map[string][]json.RawMessage, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, errors.New("starts with a byte order mark: want plain UTF-8")
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("malformed register.json: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("malformed register.json: more than one JSON value")
	}
	if top == nil {
		return nil, errors.New("register.json must be a JSON object")
	}
	var version float64
	if err := json.Unmarshal(top["version"], &version); err != nil || version != 1 {
		return nil, errors.New(`want "version": 1`)
	}
	var unknown []string
	for k := range top {
		if k != "version" && k != "_meta" && !isKind(k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown top-level keys %s: want only version, %s and _meta", strings.Join(unknown, ", "), strings.Join(registerKinds, ", "))
	}
	if m := top["_meta"]; len(m) > 0 && string(m) != "null" && m[0] != '{' {
		return nil, errors.New(`"_meta" must be an object`)
	}
	entries := map[string][]json.RawMessage{}
	for _, kind := range registerKinds {
		raw, ok := top[kind]
		if !ok || string(raw) == "null" {
			continue
		}
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil || list == nil {
			return nil, fmt.Errorf("%q must be an array or null", kind)
		}
		for i, e := range list {
			if len(e) == 0 || e[0] != '{' {
				return nil, fmt.Errorf("%s: want an object", at(kind, i, ""))
			}
		}
		entries[kind] = list
	}
	return entries, nil
}

func isKind(k string) bool {
	for _, kind := range registerKinds {
		if k == kind {
			return true
		}
	}
	return false
}

// registerError is the note a loader leaves for a directory whose
// register.json the framework would refuse.
func registerError(root string, err error, what string) Skipped {
	return Skipped{registerPath(root), fmt.Sprintf("%v; no %s of this directory are loaded (the framework does not fall back to scanning when register.json is invalid)", err, what)}
}

// declaredFile resolves a path an entry names against base (a directory
// of root): it must be relative, stay inside base as written, and lead
// to a regular file whose real path is inside base too (a symlink that
// leads out is refused, as everywhere in the loader).
func declaredFile(root, base, path string) (string, error) {
	if path == "" {
		return "", errors.New(`no "path"`)
	}
	rel, err := filepath.Rel(root, base)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(path) || strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("path %q: want a path relative to %s/", path, rel)
	}
	p := filepath.Join(base, path)
	if !within(base, p) {
		return "", fmt.Errorf("path %q %v (it must stay in %s/)", path, ErrOutside, rel)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", path, err)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil || !within(realBase, real) || !within(root, real) {
		return "", fmt.Errorf("path %q %v (a symlink to %s)", path, ErrOutside, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("path %q is not a regular file", path)
	}
	return real, nil
}

// decodeEntry decodes one entry into v. Fields the framework passes
// through without reading (icons, timeoutHint, ...) are ignored, as in
// scanned metadata; a documented field of the wrong type is an error.
func decodeEntry(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("malformed entry: %v", err)
	}
	return nil
}
