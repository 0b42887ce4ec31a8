package extension

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Project-level resource providers (mcp-bash-framework's docs/REGISTRY.md,
// "Project-Level Providers"): a project's providers/NAME.sh serves the
// resources whose "provider" is NAME, and is checked before the
// framework's own providers of that name. The contract, as the framework
// documents it:
//
//   - the script gets the full URI as $1 and prints the content on stdout;
//   - it exits 0 on success, 2 for a resource outside the allowed roots, 3
//     for one not found, 4 for an invalid specification, 5 for a failed
//     fetch, 6 for content over the size limit;
//   - it runs with MCPBASH_PROJECT_ROOT, MCPBASH_PROVIDERS_DIR,
//     MCP_RESOURCES_ROOTS and the standard PATH, HOME, TMPDIR and locale.
//
// Boris finds the script here, when the extensions load; the toolset runs
// it as it runs an extension tool (package extensions).

// ProvidersDir is where a project's providers are, under its root.
const ProvidersDir = "providers"

// Source is where the reads of a resource, or of the URIs a template
// matches, come from.
type Source struct {
	Provider string // the provider's name: ProviderFile, ProviderEcho, ProviderGit or a project's
	Script   string // the project's providers/NAME.sh (real path, inside Root); "" for a built-in
	Timeout  int    // seconds a run of Script may take (timeoutSecs); 0: the core's default
	Root     string // the extension directory (real path)
}

// Exit statuses of the provider contract.
const (
	ProviderOutside  = 2 // outside the allowed roots
	ProviderNotFound = 3
	ProviderInvalid  = 4 // an invalid resource specification
	ProviderFetch    = 5 // the fetch failed
	ProviderTooLarge = 6 // over the size limit
)

// source is the entry's provider: "provider", else the one the framework
// infers from the URI's scheme (no scheme: file; git+https: git; any
// other: the scheme's name). The project's providers/NAME.sh serves it
// when there is one, as the framework checks the project's providers
// first; else Boris's built-in file and echo serve it, and git entries are
// listed with their reads refused.
func (m *resourceMeta) source(root, uri string) (Source, error) {
	p := m.Provider
	if p == "" {
		scheme, _, ok := strings.Cut(uri, "://")
		switch {
		case !ok || scheme == "":
			p = ProviderFile
		case scheme == "git+https":
			p = ProviderGit
		default:
			p = scheme
		}
	}
	src := Source{Provider: p, Root: root}
	if m.TimeoutSecs != nil {
		if *m.TimeoutSecs < 1 || *m.TimeoutSecs > MaxTimeout {
			return src, fmt.Errorf("timeoutSecs %d: want 1 to %d", *m.TimeoutSecs, MaxTimeout)
		}
		src.Timeout = *m.TimeoutSecs
	}
	script, err := projectProvider(root, p)
	if err == nil {
		src.Script = script
		return src, nil
	}
	if !errors.Is(err, errNoScript) {
		return src, fmt.Errorf("provider %q: %v", p, err)
	}
	return src, builtin(p, uri)
}

// builtin checks that Boris has the provider p built in and that uri
// fits it.
func builtin(p, uri string) error {
	want := map[string]string{ProviderFile: "file://", ProviderEcho: "echo://", ProviderGit: "git+https://"}[p]
	if want == "" {
		return fmt.Errorf("provider %q is not supported by Boris (it has file, echo and, listed but never read, git built in; a project provider is %s/%s.sh, which does not exist)", p, ProvidersDir, p)
	}
	if !strings.HasPrefix(uri, want) {
		scheme, _, _ := strings.Cut(uri, ":")
		return fmt.Errorf("URI scheme %q does not fit the %s provider (want %s URIs)", scheme, p, want)
	}
	return nil
}

// validProviderName reports whether name can name a provider script: the
// framework runs providers/NAME.sh, so a name must not climb out of
// providers/ or hide there. Letters, digits, '_', '-', '+' and '.',
// starting with a letter or digit, at most 64 of them.
func validProviderName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for i, c := range []byte(name) {
		alnum := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '-' && c != '+' && c != '.') {
			return false
		}
	}
	return true
}

// errNoScript is projectProvider's answer when the project has no script
// for the name: a built-in provider may serve it.
var errNoScript = errors.New("no project provider")

// projectProvider finds root's providers/NAME.sh and returns its real
// path. It is errNoScript when there is no such file; an error saying why
// when there is one Boris will not run: a name that could lead out of
// providers/, a script whose real path (a symlink) lies outside root, or
// a file the framework would not run (RunsThroughBash).
func projectProvider(root, name string) (string, error) {
	if !validProviderName(name) {
		return "", errors.New("not a provider name: want letters, digits, '_', '-', '+' or '.', starting with a letter or digit")
	}
	p := filepath.Join(root, ProvidersDir, name+".sh")
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return "", errNoScript
	}
	real, err := inside(root, p)
	if err != nil {
		return "", err
	}
	if _, err := RunsThroughBash(real); err != nil {
		return "", fmt.Errorf("%s: %v", p, err)
	}
	return real, nil
}
