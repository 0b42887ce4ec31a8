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

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Resource is one resource an extension serves with the file provider:
// resources/NAME.meta.json with a "uri" (mcp-bash-framework's
// docs/REGISTRY.md, "resources.json").
type Resource struct {
	Resource *mcp.Resource // as resources/list shows it
	Root     string        // the extension directory (real path)
	Meta     string        // the metadata file, for messages
}

// Template is one resource template: a resources/*.meta.json with a
// "uriTemplate" instead of a "uri" (docs/RESOURCE-TEMPLATES.md). A client
// expands it and reads the concrete URI, which the file provider serves
// from Root like any file:// resource.
type Template struct {
	Template *mcp.ResourceTemplate
	Root     string
	Meta     string
}

// resourceMeta is a resources/*.meta.json as the framework documents it.
type resourceMeta struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	URI         string           `json:"uri"`
	URITemplate string           `json:"uriTemplate"`
	MIMEType    string           `json:"mimeType"`
	Provider    string           `json:"provider"`
	Annotations *mcp.Annotations `json:"annotations"`
	Icons       []mcp.Icon       `json:"icons"`
	Meta        map[string]any   `json:"_meta"`
}

// templateVar is what a URI template must contain at least once: the
// framework rejects templates without a {variable} (and "{}" or "{  }").
var templateVar = regexp.MustCompile(`\{[^{}\s]+\}`)

// ErrOutside is the error of a file:// URI whose file is not inside its
// extension directory.
var ErrOutside = errors.New("leads outside the extension directory")

// LoadResources reads the resources and resource templates of every
// directory in dirs, in order. Entries that cannot be served (malformed
// metadata, both or neither of uri and uriTemplate, a provider other than
// file, a file leading outside the directory, a name or URI already taken)
// are skipped and reported; the rest load.
func LoadResources(dirs []string) ([]*Resource, []*Template, []Skipped, error) {
	var res []*Resource
	var tmpls []*Template
	var skipped []Skipped
	names, uris := map[string]string{}, map[string]string{}
	roots, err := realDirs(dirs)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, root := range roots {
		metas, _ := filepath.Glob(filepath.Join(root, "resources", "*.meta.json"))
		sort.Strings(metas)
		for _, m := range metas {
			r, t, err := loadResource(root, m)
			if err != nil {
				skipped = append(skipped, Skipped{m, err.Error()})
				continue
			}
			name, uri := "", ""
			if r != nil {
				name, uri = r.Resource.Name, r.Resource.URI
			} else {
				name, uri = t.Template.Name, t.Template.URITemplate
			}
			switch {
			case names[name] != "":
				skipped = append(skipped, Skipped{m, fmt.Sprintf("resource name %q is already defined by %s", name, names[name])})
			case uris[uri] != "":
				skipped = append(skipped, Skipped{m, fmt.Sprintf("URI %q is already defined by %s", uri, uris[uri])})
			default:
				names[name], uris[uri] = m, m
				if r != nil {
					res = append(res, r)
				} else {
					tmpls = append(tmpls, t)
				}
			}
		}
	}
	return res, tmpls, skipped, nil
}

// loadResource reads one metadata file: a resource or a template.
func loadResource(root, metaPath string) (*Resource, *Template, error) {
	var m resourceMeta
	if err := readMeta(root, metaPath, &m); err != nil {
		return nil, nil, err
	}
	if m.Name == "" {
		return nil, nil, errors.New("no name")
	}
	if m.URI != "" && m.URITemplate != "" {
		return nil, nil, errors.New("both uri and uriTemplate are set: want one")
	}
	if m.URI == "" && m.URITemplate == "" {
		return nil, nil, errors.New("neither uri nor uriTemplate is set")
	}
	uri := m.URI + m.URITemplate
	if err := fileProvider(m.Provider, uri); err != nil {
		return nil, nil, err
	}
	if m.URITemplate != "" {
		if !templateVar.MatchString(m.URITemplate) {
			return nil, nil, fmt.Errorf("uriTemplate %q has no {variable}", m.URITemplate)
		}
		if _, err := uritemplate.New(m.URITemplate); err != nil {
			return nil, nil, fmt.Errorf("uriTemplate %q: %v", m.URITemplate, err)
		}
		t := &mcp.ResourceTemplate{Name: m.Name, Title: m.Title, Description: m.Description, URITemplate: m.URITemplate,
			MIMEType: m.MIMEType, Annotations: m.Annotations, Icons: m.Icons, Meta: m.Meta}
		return nil, &Template{Template: t, Root: root, Meta: metaPath}, nil
	}
	if _, err := url.Parse(m.URI); err != nil {
		return nil, nil, fmt.Errorf("uri: %v", err)
	}
	path, err := ResolveFileURI(root, m.URI)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", m.URI)
	}
	r := &mcp.Resource{Name: m.Name, Title: m.Title, Description: m.Description, URI: m.URI,
		MIMEType: m.MIMEType, Annotations: m.Annotations, Icons: m.Icons, Meta: m.Meta}
	return &Resource{Resource: r, Root: root, Meta: metaPath}, nil, nil
}

// fileProvider refuses what only the framework's other providers (git,
// https, project scripts) could serve: Boris serves files only.
func fileProvider(provider, uri string) error {
	if provider != "" && provider != "file" {
		return fmt.Errorf("provider %q is not supported by Boris (only the file provider is)", provider)
	}
	if !strings.HasPrefix(uri, "file://") {
		scheme, _, _ := strings.Cut(uri, ":")
		return fmt.Errorf("URI scheme %q is not supported by Boris (only file:// URIs are)", scheme)
	}
	return nil
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
		// A relative path must not climb out, whatever lies there.
		if p = filepath.Join(root, p); !within(root, p) {
			return "", fmt.Errorf("%s %w", uri, ErrOutside)
		}
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
