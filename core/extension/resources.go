package extension

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Resource is one resource an extension serves: resources/NAME.meta.json
// with a "uri" (mcp-bash-framework's docs/REGISTRY.md, "resources.json"),
// or an entry of register.json's "resources".
type Resource struct {
	Resource *mcp.Resource // as resources/list shows it
	Source                 // its provider
	Meta     string        // the metadata file (or register.json and the entry), for messages
}

// Template is one resource template: a resources/*.meta.json with a
// "uriTemplate" instead of a "uri" (docs/RESOURCE-TEMPLATES.md), or an
// entry of register.json's "resourceTemplates". A client expands it and
// reads the concrete URI, which the template's provider serves: the file
// provider from Root like any file:// resource, or a project provider.
type Template struct {
	Template *mcp.ResourceTemplate
	Source   // its provider: not ProviderEcho
	Meta     string
}

// The resource providers Boris has built in (the framework's
// providers/*.sh). A project's own providers/NAME.sh (providers.go) comes
// first, as in the framework, and may replace any of them.
const (
	// ProviderFile serves a file of the extension directory.
	ProviderFile = "file"
	// ProviderEcho serves the URI's payload: echo://Hello%20there reads
	// "Hello there" (providers/echo.sh, which decodes only %20).
	ProviderEcho = "echo"
	// ProviderGit would clone git+https:// repositories. The framework
	// disables it unless MCPBASH_ENABLE_GIT_PROVIDER=true; Boris, whose
	// core fetches nothing from the network, has no way to enable it: its
	// resources and templates are listed and every read is refused, as the
	// framework's default refuses them.
	ProviderGit = "git"
)

// ErrProviderDisabled is the error of a read through the git provider.
var ErrProviderDisabled = errors.New("the git provider is disabled: Boris does not fetch resources from the network (mcp-bash-framework disables it by default too)")

// resourceMeta is a resources/*.meta.json as the framework documents it,
// and an entry of register.json's "resources" or "resourceTemplates".
type resourceMeta struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	URI         string           `json:"uri"`
	URITemplate string           `json:"uriTemplate"`
	MIMEType    string           `json:"mimeType"`
	Provider    string           `json:"provider"`
	Path        string           `json:"path"` // register.json: a file under resources/ (not read)
	Annotations *mcp.Annotations `json:"annotations"`
	Icons       []mcp.Icon       `json:"icons"`
	Meta        map[string]any   `json:"_meta"`
	// TimeoutSecs bounds a run of a project provider (Boris's addition,
	// as tool.meta.json's timeoutSecs bounds a tool).
	TimeoutSecs *int `json:"timeoutSecs"`
}

// templateVar is what a URI template must contain at least once: the
// framework rejects templates without a {variable} (and "{}" or "{  }").
var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}\s]+\}`) })

// ErrOutside is the error of a file:// URI whose file is not inside its
// extension directory.
var ErrOutside = errors.New("leads outside the extension directory")

// LoadResources reads the resources and resource templates of every
// directory in dirs, in order. A directory's resources are those its
// register.json declares when it has a "resources" key, else its
// resources/*.meta.json with a "uri"; its templates are its
// resources/*.meta.json with a "uriTemplate", with register.json's
// "resourceTemplates" merged over them (an entry replaces the scanned
// template of its name), as the framework merges them. Entries that
// cannot be served (malformed metadata, both or neither of uri and
// uriTemplate, a provider Boris lacks, a file leading outside the
// directory, a name or URI already taken) are skipped and reported; the
// rest load. A directory whose register.json is invalid loads nothing.
func LoadResources(dirs []string) ([]*Resource, []*Template, []Skipped, error) {
	var res []*Resource
	var tmpls []*Template
	var skipped []Skipped
	names, uris := map[string]string{}, map[string]string{}
	roots, err := realDirs(dirs)
	if err != nil {
		return nil, nil, nil, err
	}
	take := func(name, uri, where string) bool {
		switch {
		case names[name] != "":
			skipped = append(skipped, Skipped{where, fmt.Sprintf("resource name %q is already defined by %s", name, names[name])})
		case uris[uri] != "":
			skipped = append(skipped, Skipped{where, fmt.Sprintf("URI %q is already defined by %s", uri, uris[uri])})
		default:
			names[name], uris[uri] = where, where
			return true
		}
		return false
	}
	for _, root := range roots {
		r, t, sk := dirResources(root)
		skipped = append(skipped, sk...)
		for _, x := range r {
			if take(x.Resource.Name, x.Resource.URI, x.Meta) {
				res = append(res, x)
			}
		}
		for _, x := range t {
			if take(x.Template.Name, x.Template.URITemplate, x.Meta) {
				tmpls = append(tmpls, x)
			}
		}
	}
	return res, tmpls, skipped, nil
}

// dirResources reads one directory's resources and templates.
func dirResources(root string) ([]*Resource, []*Template, []Skipped) {
	reg, err := loadRegister(root)
	if err != nil {
		return nil, nil, []Skipped{registerError(root, err, "resources or resource templates")}
	}
	var res []*Resource
	var skipped []Skipped
	byName := map[string]*Template{}
	var order []string
	metas, _ := filepath.Glob(filepath.Join(root, "resources", "*.meta.json"))
	sort.Strings(metas)
	for _, m := range metas {
		r, t, err := loadResource(root, m)
		switch {
		case err != nil && !reg.declared("resources"):
			skipped = append(skipped, Skipped{m, err.Error()})
		case err != nil:
			// A scanned template is still served; a broken file that may
			// have been a resource is reported only if it was a template.
			if isTemplateMeta(root, m) {
				skipped = append(skipped, Skipped{m, err.Error()})
			}
		case t != nil && byName[t.Template.Name] != nil:
			skipped = append(skipped, Skipped{m, fmt.Sprintf("template name %q is already defined by %s", t.Template.Name, byName[t.Template.Name].Meta)})
		case t != nil:
			byName[t.Template.Name] = t
			order = append(order, t.Template.Name)
		case !reg.declared("resources"):
			res = append(res, r)
		}
	}
	if reg.declared("resources") {
		for i, raw := range reg.list("resources") {
			r, name, err := declaredResource(root, raw)
			w := reg.path + ": " + at("resources", i, name)
			if err != nil {
				skipped = append(skipped, Skipped{w, err.Error()})
				continue
			}
			r.Meta = w
			res = append(res, r)
		}
	}
	declared := map[string]bool{}
	for i, raw := range reg.list("resourceTemplates") {
		t, name, err := declaredTemplate(root, raw)
		w := reg.path + ": " + at("resourceTemplates", i, name)
		switch {
		case err != nil:
			skipped = append(skipped, Skipped{w, err.Error()})
		case declared[t.Template.Name]:
			skipped = append(skipped, Skipped{w, fmt.Sprintf("template name %q is declared twice in resourceTemplates: the first is kept", t.Template.Name)})
		default:
			declared[t.Template.Name] = true
			t.Meta = w
			if byName[t.Template.Name] == nil {
				order = append(order, t.Template.Name)
			}
			byName[t.Template.Name] = t // register.json wins over the scan
		}
	}
	resNames := map[string]bool{}
	for _, r := range res {
		resNames[r.Resource.Name] = true
	}
	sort.Strings(order)
	var tmpls []*Template
	for _, name := range order {
		t := byName[name]
		if resNames[name] {
			// The framework skips a template that reuses a resource's name.
			skipped = append(skipped, Skipped{t.Meta, fmt.Sprintf("template name %q is a resource's", name)})
			continue
		}
		tmpls = append(tmpls, t)
	}
	return res, tmpls, skipped
}

// isTemplateMeta reports whether a metadata file that failed to load at
// least parses as a template's (it has a "uriTemplate").
func isTemplateMeta(root, metaPath string) bool {
	var m resourceMeta
	return readMeta(root, metaPath, &m) == nil && m.URITemplate != ""
}

// loadResource reads one metadata file: a resource or a template.
func loadResource(root, metaPath string) (*Resource, *Template, error) {
	var m resourceMeta
	if err := readMeta(root, metaPath, &m); err != nil {
		return nil, nil, err
	}
	if m.URI != "" && m.URITemplate != "" {
		return nil, nil, errors.New("both uri and uriTemplate are set: want one")
	}
	if m.URITemplate != "" {
		t, err := m.template(root)
		if t != nil {
			t.Meta = metaPath
		}
		return nil, t, err
	}
	r, err := m.resource(root)
	if r != nil {
		r.Meta = metaPath
	}
	return r, nil, err
}

// declaredResource checks one entry of register.json's "resources". Its
// "path", when given, is a file under resources/ that the framework
// records but does not read; it must not lead outside either.
func declaredResource(root string, raw json.RawMessage) (*Resource, string, error) {
	var m resourceMeta
	if err := decodeEntry(raw, &m); err != nil {
		return nil, "", err
	}
	if m.URITemplate != "" {
		return nil, m.Name, errors.New(`uriTemplate is set: declare templates under "resourceTemplates"`)
	}
	if m.Path != "" {
		if _, err := declaredFile(root, filepath.Join(root, "resources"), m.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, m.Name, err
		}
	}
	r, err := m.resource(root)
	return r, m.Name, err
}

// declaredTemplate checks one entry of register.json's
// "resourceTemplates".
func declaredTemplate(root string, raw json.RawMessage) (*Template, string, error) {
	var m resourceMeta
	if err := decodeEntry(raw, &m); err != nil {
		return nil, "", err
	}
	if m.URI != "" {
		return nil, m.Name, errors.New("both uri and uriTemplate are set: want one")
	}
	t, err := m.template(root)
	return t, m.Name, err
}

// template checks a template's metadata.
func (m *resourceMeta) template(root string) (*Template, error) {
	if m.Name == "" {
		return nil, errors.New("no name")
	}
	src, err := m.source(root, m.URITemplate)
	if err != nil {
		return nil, err
	}
	if src.Provider == ProviderEcho && src.Script == "" {
		return nil, errors.New("the echo provider serves resources, not templates")
	}
	if !templateVar().MatchString(m.URITemplate) {
		return nil, fmt.Errorf("uriTemplate %q has no {variable}", m.URITemplate)
	}
	if _, err := uritemplate.New(m.URITemplate); err != nil {
		return nil, fmt.Errorf("uriTemplate %q: %v", m.URITemplate, err)
	}
	t := &mcp.ResourceTemplate{Name: m.Name, Title: m.Title, Description: m.Description, URITemplate: m.URITemplate,
		MIMEType: m.MIMEType, Annotations: m.Annotations, Icons: m.Icons, Meta: m.Meta}
	return &Template{Template: t, Source: src}, nil
}

// resource checks a resource's metadata; the file of a resource the
// built-in file provider serves must exist inside root.
func (m *resourceMeta) resource(root string) (*Resource, error) {
	if m.Name == "" {
		return nil, errors.New("no name")
	}
	if m.URI == "" {
		return nil, errors.New("neither uri nor uriTemplate is set")
	}
	src, err := m.source(root, m.URI)
	if err != nil {
		return nil, err
	}
	if _, err := url.Parse(m.URI); err != nil {
		return nil, fmt.Errorf("uri: %v", err)
	}
	if src.Provider == ProviderFile && src.Script == "" {
		path, err := ResolveFileURI(root, m.URI)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", m.URI)
		}
	}
	r := &mcp.Resource{Name: m.Name, Title: m.Title, Description: m.Description, URI: m.URI,
		MIMEType: m.MIMEType, Annotations: m.Annotations, Icons: m.Icons, Meta: m.Meta}
	return &Resource{Resource: r, Source: src}, nil
}

// Echo is what the echo provider reads for uri: its payload after
// "echo://", with "%20" as a space and nothing else decoded, as
// providers/echo.sh does.
func Echo(uri string) string {
	return strings.ReplaceAll(strings.TrimPrefix(uri, "echo://"), "%20", " ")
}

// readMeta decodes the metadata file metaPath, which must lie inside root
// and be at most MaxMetaSize bytes, into v.
func readMeta(root, metaPath string, v any) error {
	real, err := inside(root, metaPath)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if fi.Size() > MaxMetaSize {
		return fmt.Errorf("metadata is %d bytes, over the %d limit", fi.Size(), MaxMetaSize)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("malformed metadata: %v", err)
	}
	return nil
}

// ResolveFileURI maps a file:// URI onto a file of the extension directory
// root, as the framework's file provider does: "file://./resources/a.txt"
// and "file://resources/a.txt" are relative to root, "file:///abs/a.txt"
// is absolute. The result is the file's real path (symlinks resolved); a
// URI whose path, before or after resolving symlinks, lies outside root is
// refused with ErrOutside, so a ".." or a link never leads out.
func ResolveFileURI(root, uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		return "", fmt.Errorf("%s: not a file:// URI", uri)
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("%s: %v", uri, err)
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%s: a NUL in the path", uri)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	// A path must not lead out as written, whatever lies there: an
	// absolute one outside is refused before anything there is looked
	// at, so the answer never says whether it exists.
	if p = filepath.Clean(p); !within(root, p) {
		return "", fmt.Errorf("%s %w", uri, ErrOutside)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if !within(root, real) {
		return "", fmt.Errorf("%s %w (a symlink)", uri, ErrOutside)
	}
	return real, nil
}

// ResourceRoots are the real paths of the directories in dirs whose
// resources/ the file provider reads unlisted file:// URIs from (the
// framework's default MCP_RESOURCES_ROOTS): every directory but one whose
// register.json is invalid, which serves nothing.
func ResourceRoots(dirs []string) []string {
	var out []string
	for _, dir := range dirs {
		root, err := realDir(dir)
		if err != nil {
			continue
		}
		if _, err := loadRegister(root); err == nil {
			out = append(out, root)
		}
	}
	return out
}

// ReadResourcesFile reads, as the framework's file provider does for a
// URI no resource lists, the file a file:// URI names (see
// ResolveFileURI) when it lies in root's resources/ directory, refusing
// a file over limit bytes. Any other file is ErrOutside.
func ReadResourcesFile(root, uri string, limit int64) ([]byte, error) {
	dir, err := filepath.EvalSymlinks(filepath.Join(root, "resources"))
	if err != nil {
		return nil, err
	}
	if !within(root, dir) {
		return nil, fmt.Errorf("resources/ %w", ErrOutside)
	}
	path, err := ResolveFileURI(root, uri)
	if err != nil {
		return nil, err
	}
	if !within(dir, path) {
		return nil, fmt.Errorf("%s %w (not under resources/)", uri, ErrOutside)
	}
	return readBounded(dir, path, limit)
}

// within reports whether the clean absolute path p is root or below it.
func within(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// TemplateMatches reports whether uri is an expansion of the RFC 6570
// template tmpl, as the SDK decides which template serves a read.
func TemplateMatches(tmpl, uri string) bool {
	t, err := uritemplate.New(tmpl)
	return err == nil && t.Regexp().MatchString(uri)
}
