package extension

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
	// Inputs are what the prompt asks the client before it renders, by
	// key: {"method", "params"} of elicitation/create, sampling/createMessage
	// or roots/list (a Boris addition, see promptMeta.Inputs).
	Inputs map[string]json.RawMessage
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
	// Inputs (a Boris addition) are questions to the client, by key,
	// whose answers the template reads as {{KEY.path}}: the answer's
	// member at path (e.g. {{who.content.name}} of an elicitation).
	Inputs map[string]json.RawMessage `json:"inputs"`
}

// inputKey is what an input's key may be: a placeholder's name, so that
// the template can read its answer.
var inputKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) })

// InputMethods are what a prompt may ask its client.
var InputMethods = []string{"elicitation/create", "sampling/createMessage", "roots/list"}

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
			stem := strings.TrimSuffix(filepath.Base(t), MessagesSuffix)
			stem = strings.TrimSuffix(stem, filepath.Ext(stem))
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
	for key, q := range m.Inputs {
		var in struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if !inputKey().MatchString(key) {
			return nil, fmt.Errorf("inputs: key %q: want letters, digits and _, not starting with a digit", key)
		}
		if err := json.Unmarshal(q, &in); err != nil || !slices.Contains(InputMethods, in.Method) || len(in.Params) > 0 && in.Params[0] != '{' {
			return nil, fmt.Errorf("inputs.%s: want {\"method\": one of %s, \"params\": {...}}", key, strings.Join(InputMethods, ", "))
		}
		if p.Inputs == nil {
			p.Inputs = map[string]json.RawMessage{}
		}
		p.Inputs[key] = q
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
// Compiled at first use: package initialisation does no work a session may
// not need.
var placeholder = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\{\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+)*)\}\}`)
})

// Render reads the template and substitutes args. A required argument
// that is missing is ErrMissingArgument. Every placeholder naming a
// declared argument or a given one is replaced (a declared one not given
// by the empty string); others are left as they are. Substitution is one
// pass, so a value containing a placeholder stays as given.
func (p *Prompt) Render(args map[string]string) (string, error) {
	if err := p.checkArgs(args); err != nil {
		return "", err
	}
	text, err := readBounded(p.Root, p.Template, MaxTemplateSize)
	if err != nil {
		return "", fmt.Errorf("read the template of prompt %s: %w", p.Prompt.Name, err)
	}
	return p.substitute(string(text), args, nil).(string), nil
}

// checkArgs reports the first required argument args lacks.
func (p *Prompt) checkArgs(args map[string]string) error {
	for _, a := range p.Prompt.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return fmt.Errorf("%w %q", ErrMissingArgument, a.Name)
		}
	}
	return nil
}

// MessagesSuffix ends the name of a messages template: a JSON array of
// prompt messages ({"role", "content"}) instead of one text message, a
// Boris addition to the framework's layout for prompts whose content is
// not text alone. Placeholders are substituted in every string of it; an
// image or audio content block may give "path" (a file in the extension
// directory) instead of "data", and a resource content block's resource
// "path" instead of "text" or "blob": the file is read when the prompt is
// rendered.
const MessagesSuffix = ".messages.json"

// MaxPromptFile bounds a file a messages template embeds.
const MaxPromptFile = 8 << 20

// Messages renders the prompt with args: its text template as one message
// in the prompt's role, or its messages template (see MessagesSuffix).
//
// answers are the client's answers to the prompt's Inputs, by key, as
// decoded JSON: {{KEY.a.b}} is answers[KEY]["a"]["b"] (a string as it is,
// anything else as JSON), empty when the client gave no such answer.
func (p *Prompt) Messages(args map[string]string, answers map[string]any) ([]*mcp.PromptMessage, error) {
	if err := p.checkArgs(args); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(p.Template, MessagesSuffix) {
		text, err := readBounded(p.Root, p.Template, MaxTemplateSize)
		if err != nil {
			return nil, fmt.Errorf("read the template of prompt %s: %w", p.Prompt.Name, err)
		}
		return []*mcp.PromptMessage{{Role: p.Role, Content: &mcp.TextContent{Text: p.substitute(string(text), args, answers).(string)}}}, nil
	}
	// Parsed first, then substituted string by string: a value with a
	// quote or a backslash cannot break the JSON.
	raw, err := readBounded(p.Root, p.Template, MaxTemplateSize)
	if err != nil {
		return nil, fmt.Errorf("read the template of prompt %s: %w", p.Prompt.Name, err)
	}
	var msgs []struct {
		Role    string         `json:"role"`
		Content map[string]any `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("messages template of prompt %s: %v (want a JSON array of {\"role\", \"content\"})", p.Prompt.Name, err)
	}
	out := make([]*mcp.PromptMessage, 0, len(msgs))
	for i, m := range msgs {
		if m.Role == "" {
			m.Role = string(p.Role)
		}
		if m.Role != "user" && m.Role != "assistant" {
			return nil, fmt.Errorf("messages template of prompt %s: message %d: role %q: want \"user\" or \"assistant\"", p.Prompt.Name, i, m.Role)
		}
		content, _ := p.substitute(m.Content, args, answers).(map[string]any)
		if err := p.embed(content); err != nil {
			return nil, fmt.Errorf("messages template of prompt %s: message %d: %w", p.Prompt.Name, i, err)
		}
		b, err := json.Marshal(map[string]any{"role": m.Role, "content": content})
		if err != nil {
			return nil, err
		}
		var pm mcp.PromptMessage
		if err := json.Unmarshal(b, &pm); err != nil {
			return nil, fmt.Errorf("messages template of prompt %s: message %d: %v", p.Prompt.Name, i, err)
		}
		out = append(out, &pm)
	}
	return out, nil
}

// substitute replaces placeholders in every string of v, as Render does,
// and {{KEY.path}} with the answer to the input KEY (see Messages).
func (p *Prompt) substitute(v any, args map[string]string, answers map[string]any) any {
	switch v := v.(type) {
	case string:
		return placeholder().ReplaceAllStringFunc(v, func(m string) string {
			sub := placeholder().FindStringSubmatch(m)
			name := sub[1] + sub[2]
			if sub[3] != "" || p.Inputs[name] != nil {
				if p.Inputs[name] == nil {
					return m
				}
				return answerAt(answers[name], strings.Split(strings.TrimPrefix(sub[3], "."), "."))
			}
			if a, ok := args[name]; ok {
				return a
			}
			if _, ok := p.Args[name]; ok {
				return ""
			}
			return m
		})
	case map[string]any:
		for k, x := range v {
			v[k] = p.substitute(x, args, answers)
		}
	case []any:
		for i, x := range v {
			v[i] = p.substitute(x, args, answers)
		}
	}
	return v
}

// answerAt is the member of v at path, as text: a string as it is,
// anything else as JSON, "" when there is none.
func answerAt(v any, path []string) string {
	for _, k := range path {
		if k == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := -1
			if _, err := fmt.Sscanf(k, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// embed reads the files a content block names by "path" into it.
func (p *Prompt) embed(c map[string]any) error {
	read := func(v any) ([]byte, error) {
		rel, _ := v.(string)
		if rel == "" || filepath.IsAbs(rel) {
			return nil, fmt.Errorf("path %q: want a path relative to the extension directory", rel)
		}
		path := filepath.Join(p.Root, rel)
		if !within(p.Root, path) {
			return nil, fmt.Errorf("path %q %v", rel, ErrOutside)
		}
		return readBounded(p.Root, path, MaxPromptFile)
	}
	switch c["type"] {
	case "image", "audio":
		if path, ok := c["path"]; ok {
			data, err := read(path)
			if err != nil {
				return err
			}
			delete(c, "path")
			c["data"] = base64.StdEncoding.EncodeToString(data)
		}
	case "resource":
		r, _ := c["resource"].(map[string]any)
		if path, ok := r["path"]; ok {
			data, err := read(path)
			if err != nil {
				return err
			}
			delete(r, "path")
			mime, _ := r["mimeType"].(string)
			if strings.HasPrefix(mime, "text/") || mime == "" && utf8.Valid(data) {
				r["text"] = string(data)
			} else {
				r["blob"] = base64.StdEncoding.EncodeToString(data)
			}
		}
	}
	return nil
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
