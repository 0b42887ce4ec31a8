package extension

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is one extension prompt: a template file under prompts/ and its
// metadata (mcp-bash-framework's docs/REGISTRY.md, "prompts.json").
type Prompt struct {
	Prompt   *mcp.Prompt                   // as prompts/list shows it
	Role     mcp.Role                      // the rendered message's role: "user" unless the metadata says
	Args     map[string]*jsonschema.Schema // the arguments' schemas, by name
	Template string                        // the template file (real path, inside Root)
	Root     string
	Meta     string // the metadata file, or the template when it has none
}

// promptMeta is a prompts/*.meta.json as the framework documents it.
type promptMeta struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Path        string          `json:"path"`
	Role        string          `json:"role"`
	Arguments   json.RawMessage `json:"arguments"`
	Icons       []mcp.Icon      `json:"icons"`
	Meta        map[string]any  `json:"_meta"`
}

// MaxTemplateSize bounds a prompt template.
const MaxTemplateSize = 1 << 20

// maxPromptDepth bounds how deep prompts/ is searched.
const maxPromptDepth = 4

// LoadPrompts reads the prompts of every directory in dirs, in order:
// those its server.d/register.json declares when it has a "prompts" key
// (the framework then does not scan), else those under prompts/. As the
// framework does, every file under prompts/ other than a metadata file is
// a template; its metadata is NAME.meta.json beside it (for NAME.txt,
// NAME.txt.meta.json also works), and without one the prompt is named
// after the file and takes no arguments. A metadata file whose template is
// missing, malformed metadata, a duplicate name or a path leading outside
// the directory is skipped and reported; the rest load. A directory whose
// register.json is invalid loads no prompt.
func LoadPrompts(dirs []string) ([]*Prompt, []Skipped, error) {
	var prompts []*Prompt
	var skipped []Skipped
	seen := map[string]string{}
	roots, err := realDirs(dirs)
	if err != nil {
		return nil, nil, err
	}
	for _, root := range roots {
		found, sk := dirPrompts(root)
		skipped = append(skipped, sk...)
		for _, p := range found {
			if prev := seen[p.Prompt.Name]; prev != "" {
				skipped = append(skipped, Skipped{p.Meta, fmt.Sprintf("prompt name %q is already defined by %s", p.Prompt.Name, prev)})
				continue
			}
			seen[p.Prompt.Name] = p.Meta
			prompts = append(prompts, p)
		}
	}
	return prompts, skipped, nil
}

// dirPrompts reads one directory's prompts.
func dirPrompts(root string) ([]*Prompt, []Skipped) {
	reg, err := loadRegister(root)
	if err != nil {
		return nil, []Skipped{registerError(root, err, "prompts")}
	}
	if reg.declared("prompts") {
		var found []*Prompt
		var skipped []Skipped
		for i, raw := range reg.list("prompts") {
			p, name, err := declaredPrompt(root, raw)
			w := reg.path + ": " + at("prompts", i, name)
			if err != nil {
				skipped = append(skipped, Skipped{w, err.Error()})
				continue
			}
			p.Meta = w
			found = append(found, p)
		}
		return found, skipped
	}
	var skipped []Skipped
	metas, templates := promptFiles(filepath.Join(root, "prompts"))
	claimed := map[string]bool{}
	hasMeta := map[string]bool{}
	for _, m := range metas {
		hasMeta[strings.TrimSuffix(m, ".meta.json")] = true
	}
	var found []*Prompt
	for _, m := range metas {
		p, err := loadPrompt(root, m, templates)
		if err != nil {
			skipped = append(skipped, Skipped{m, err.Error()})
			continue
		}
		claimed[p.Template] = true
		found = append(found, p)
	}
	for _, t := range templates {
		real, err := inside(root, t)
		switch {
		case err != nil:
			skipped = append(skipped, Skipped{t, err.Error()})
		case !claimed[real] && !hasMeta[t] && !hasMeta[strings.TrimSuffix(t, filepath.Ext(t))]:
			// A template with metadata beside it is that metadata's,
			// loaded or skipped; only a bare template is a prompt alone.
			stem := strings.TrimSuffix(filepath.Base(t), filepath.Ext(t))
			found = append(found, &Prompt{Prompt: &mcp.Prompt{Name: stem}, Role: "user", Template: real, Root: root, Meta: t})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Meta < found[j].Meta })
	return found, skipped
}

// promptFiles lists the metadata files and templates under dir (hidden
// entries left out), sorted.
func promptFiles(dir string) (metas, templates []string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(strings.TrimPrefix(p, dir), string(filepath.Separator)) >= maxPromptDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".meta.json") {
			metas = append(metas, p)
		} else {
			templates = append(templates, p)
		}
		return nil
	})
	return metas, templates
}

// loadPrompt reads one metadata file and finds its template: the file its
// "path" names (relative to prompts/, or to the extension directory), else
// the file named like the metadata without ".meta.json" (NAME or NAME.*).
func loadPrompt(root, metaPath string, templates []string) (*Prompt, error) {
	var m promptMeta
	if err := readMeta(root, metaPath, &m); err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(filepath.Base(metaPath), ".meta.json")
	if m.Name == "" {
		m.Name = stem
	}
	p, err := m.prompt(root, metaPath)
	if err != nil {
		return nil, err
	}
	tmpl, err := promptTemplate(root, metaPath, m.Path, stem, templates)
	if err != nil {
		return nil, err
	}
	if p.Template, err = inside(root, tmpl); err != nil {
		return nil, err
	}
	fi, err := os.Stat(p.Template)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("template %s is not a regular file", tmpl)
	}
	return p, nil
}

// declaredPrompt checks one entry of register.json's "prompts": a
// prompt's metadata whose "path" names its template relative to prompts/
// (where the framework reads it), which must not lead outside.
func declaredPrompt(root string, raw json.RawMessage) (*Prompt, string, error) {
	var m promptMeta
	if err := decodeEntry(raw, &m); err != nil {
		return nil, "", err
	}
	if m.Name == "" {
		return nil, "", errors.New("no name")
	}
	p, err := m.prompt(root, "")
	if err != nil {
		return nil, m.Name, err
	}
	if p.Template, err = declaredFile(root, filepath.Join(root, "prompts"), m.Path); err != nil {
		return nil, m.Name, err
	}
	return p, m.Name, nil
}

// prompt checks the metadata and makes the prompt it describes, without
// its template.
func (m *promptMeta) prompt(root, where string) (*Prompt, error) {
	role := mcp.Role("user")
	switch m.Role {
	case "", "user":
	case "assistant":
		role = "assistant"
	default:
		return nil, fmt.Errorf("role %q: want \"user\" or \"assistant\"", m.Role)
	}
	p := &Prompt{Prompt: &mcp.Prompt{Name: m.Name, Title: m.Title, Description: m.Description, Icons: m.Icons, Meta: m.Meta},
		Role: role, Root: root, Meta: where}
	if err := p.arguments(m.Arguments); err != nil {
		return nil, err
	}
	return p, nil
}

// promptTemplate finds a prompt's template file.
func promptTemplate(root, metaPath, path, stem string, templates []string) (string, error) {
	if path != "" {
		if filepath.IsAbs(path) {
			return "", fmt.Errorf("path %q: want a path relative to prompts/", path)
		}
		for _, base := range []string{filepath.Join(root, "prompts"), root} {
			p := filepath.Join(base, path)
			if !within(root, p) {
				return "", fmt.Errorf("path %q %v", path, ErrOutside)
			}
			if _, err := os.Lstat(p); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("template %q not found (path is relative to prompts/)", path)
	}
	dir := filepath.Dir(metaPath)
	var candidates []string
	for _, t := range templates {
		if filepath.Dir(t) == dir && (filepath.Base(t) == stem || strings.HasPrefix(filepath.Base(t), stem+".")) {
			candidates = append(candidates, t)
		}
	}
	switch len(candidates) {
	case 0:
		return "", fmt.Errorf("no template: want a file %s.<ext> beside the metadata, or a \"path\"", stem)
	case 1:
		return candidates[0], nil
	}
	return "", fmt.Errorf("several templates could be %s's (%s): name one with \"path\"", stem, strings.Join(candidates, ", "))
}

// arguments turns the metadata's "arguments" into the prompt's arguments:
// an object schema whose properties are the arguments (sorted by name) and
// whose "required" the required ones, or, as the framework also accepts,
// the list prompts/list shows ([{"name", "description", "required"}]).
func (p *Prompt) arguments(raw json.RawMessage) error {
	p.Args = map[string]*jsonschema.Schema{}
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '[' {
		return p.argumentList(raw)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("arguments: %v", err)
	}
	if s.Type != "" && s.Type != "object" {
		return fmt.Errorf("arguments: type %q: want \"object\"", s.Type)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := s.Properties[name]
		if prop == nil {
			prop = &jsonschema.Schema{}
		}
		p.Args[name] = prop
		p.Prompt.Arguments = append(p.Prompt.Arguments, &mcp.PromptArgument{Name: name, Title: prop.Title, Description: prop.Description, Required: required[name]})
	}
	return nil
}

// argumentList reads arguments given as prompts/list shows them.
func (p *Prompt) argumentList(raw json.RawMessage) error {
	var list []*mcp.PromptArgument
	if err := json.Unmarshal(raw, &list); err != nil {
		return fmt.Errorf("arguments: %v", err)
	}
	for i, a := range list {
		if a == nil || a.Name == "" {
			return fmt.Errorf("arguments[%d]: no name", i)
		}
		if p.Args[a.Name] != nil {
			return fmt.Errorf("arguments[%d]: %q is listed twice", i, a.Name)
		}
		p.Args[a.Name] = &jsonschema.Schema{Title: a.Title, Description: a.Description}
		p.Prompt.Arguments = append(p.Prompt.Arguments, a)
	}
	return nil
}

// ErrMissingArgument is the error of a prompt rendered without one of its
// required arguments.
var ErrMissingArgument = errors.New("missing required argument")

// placeholder is a substitution in a template: ${name}, as the
// framework's documentation and scaffold write it, or {{name}}, which its
// renderer also replaces.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`)
})

// Render reads the template and substitutes args. A required argument
// that is missing is ErrMissingArgument. Every placeholder naming a
// declared argument or a given one is replaced (a declared one not given
// by the empty string); others are left as they are. Substitution is one
// pass, so a value containing a placeholder stays as given.
func (p *Prompt) Render(args map[string]string) (string, error) {
	for _, a := range p.Prompt.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return "", fmt.Errorf("%w %q", ErrMissingArgument, a.Name)
		}
	}
	text, err := readBounded(p.Root, p.Template, MaxTemplateSize)
	if err != nil {
		return "", fmt.Errorf("read the template of prompt %s: %w", p.Prompt.Name, err)
	}
	return placeholder().ReplaceAllStringFunc(string(text), func(m string) string {
		sub := placeholder().FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := args[name]; ok {
			return v
		}
		if _, ok := p.Args[name]; ok {
			return ""
		}
		return m
	}), nil
}

// readBounded reads the file at path, whose real path must still lie in
// root, refusing one over limit bytes.
func readBounded(root, path string, limit int64) ([]byte, error) {
	f, err := OpenInside(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%d bytes, over the %d limit", fi.Size(), limit)
	}
	return readAllLimit(f, limit)
}

// enumValues lists a schema's string enum values, for completion.
func enumValues(s *jsonschema.Schema) []string {
	var out []string
	for _, v := range s.Enum {
		if str, ok := v.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// Complete suggests values for the argument name that start with prefix
// (case-insensitively) from its schema's enum: the completion a prompt
// gets without a completion script.
func (p *Prompt) Complete(name, prefix string) []string {
	s := p.Args[name]
	if s == nil {
		return nil
	}
	var out []string
	for _, v := range enumValues(s) {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			out = append(out, v)
		}
	}
	return out
}
