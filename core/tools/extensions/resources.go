package extensions

//lint:file-ignore SA1019 logging is deprecated by the 2026-07-28 revision but is how extension tools' logs reach 2025 clients (docs/reference/core.md#extensions)

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Resources, prompts and completions from --extensions directories
// (docs/reference/core.md#extensions), in mcp-bash-framework's formats: resources/*.meta.json (or
// register.json's "resources") served by the file provider (confined to
// the extension's directory), the echo provider or the project's own
// providers/NAME.sh (providers.go), resource templates,
// prompts/ templates with argument substitution, and completion scripts
// registered in server.d/register.json. List results
// are paginated by the SDK (ServerOptions.PageSize).

// extResourcePoll is how often subscribed resources are checked for
// changes, while at least one is subscribed.
const extResourcePoll = 2 * time.Second

// extMaxWatches bounds the URIs watched at once: each costs a check per
// poll, a run of its provider for a project provider's.
const extMaxWatches = 256

// extContent is what the extension directories add besides tools.
type extContent struct {
	cat atomic.Pointer[extCatalog] // replaced whole when the directories change

	mu      sync.Mutex
	server  *mcp.Server          // set when registered
	subs    map[string]*extWatch // subscribed URIs
	polling bool                 // the poller runs

	ctx    context.Context // ends at close: the poller stops, a provider it runs is stopped
	cancel context.CancelFunc
}

// extCatalog is one reading of the extension directories' resources,
// templates, prompts and completions. It is never changed once stored.
type extCatalog struct {
	resources   []*extension.Resource
	templates   []*extension.Template
	prompts     []*extension.Prompt
	completions map[string]*extension.Completion
	roots       []string // whose resources/ serve unlisted file:// URIs
}

// extWatch is one subscribed URI: who subscribed, how to see what it
// looks like now, and what it looked like when last checked (known is
// false until it was).
type extWatch struct {
	sessions map[*mcp.ServerSession]bool
	check    func(context.Context) string
	state    string
	known    bool
}

// loadExtensionContent reads the resources, prompts and completions of
// --extensions. Entries that cannot be used are skipped with a log line
// each.
func (b *Set) loadExtensionContent() error {
	cat, err := b.readExtCatalog()
	if err != nil {
		return &flagenv.UsageError{Msg: fmt.Sprintf("invalid --extensions: %v", err)}
	}
	c := &extContent{subs: map[string]*extWatch{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.cat.Store(cat)
	b.content = c
	return nil
}

// readExtCatalog reads the directories' resources, prompts and
// completions, logging what it skips.
func (b *Set) readExtCatalog() (*extCatalog, error) {
	dirs := b.opt.Dirs
	res, tmpls, skipped, err := extension.LoadResources(dirs)
	if err != nil {
		return nil, err
	}
	prompts, sk, err := extension.LoadPrompts(dirs)
	if err != nil {
		return nil, err
	}
	skipped = append(skipped, sk...)
	comps, sk, err := extension.LoadCompletions(dirs)
	if err != nil {
		return nil, err
	}
	extension.Log(b.opt.Log, append(skipped, sk...))
	cat := &extCatalog{resources: res, templates: tmpls, prompts: prompts, completions: map[string]*extension.Completion{},
		roots: extension.ResourceRoots(dirs)}
	for _, comp := range comps {
		cat.completions[comp.Name] = comp
	}
	b.opt.Log.Info("extension content loaded", "resources", len(res), "templates", len(tmpls), "prompts", len(prompts), "completions", len(comps))
	return cat, nil
}

// reloadExtensionContent reads the directories again and makes what they
// hold now the server's resources, templates and prompts: gone ones are
// removed, the rest (re)added; the SDK sends the list_changed
// notifications. On an error the content loaded before stays.
func (b *Set) reloadExtensionContent(s *mcp.Server) {
	c := b.content
	if c == nil {
		return
	}
	cat, err := b.readExtCatalog()
	if err != nil {
		b.opt.Log.Warn("reloading extension content failed; keeping what was loaded before", "err", err)
		return
	}
	old := c.cat.Swap(cat)
	b.d.ListsChanged() // cursors into the old lists are stale
	keepURI, keepTmpl, keepPrompt := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range cat.resources {
		keepURI[r.Resource.URI] = true
	}
	for _, t := range cat.templates {
		keepTmpl[t.Template.URITemplate] = true
	}
	for _, p := range cat.prompts {
		keepPrompt[p.Prompt.Name] = true
	}
	var goneURI, goneTmpl, gonePrompt []string
	for _, r := range old.resources {
		if !keepURI[r.Resource.URI] {
			goneURI = append(goneURI, r.Resource.URI)
		}
	}
	for _, t := range old.templates {
		if !keepTmpl[t.Template.URITemplate] {
			goneTmpl = append(goneTmpl, t.Template.URITemplate)
		}
	}
	for _, p := range old.prompts {
		if !keepPrompt[p.Prompt.Name] {
			gonePrompt = append(gonePrompt, p.Prompt.Name)
		}
	}
	if len(goneURI) > 0 {
		s.RemoveResources(goneURI...)
	}
	if len(goneTmpl) > 0 {
		s.RemoveResourceTemplates(goneTmpl...)
	}
	if len(gonePrompt) > 0 {
		s.RemovePrompts(gonePrompt...)
	}
	b.registerExtCatalog(s, cat)
}

// ServerOptions sets the server options extension content needs:
// subscriptions when there are resources, completion when there is
// something to complete.
func (b *Set) ServerOptions(o *mcp.ServerOptions) {
	if b == nil {
		return
	}
	c := b.content.cat.Load()
	if len(c.resources)+len(c.templates) > 0 {
		o.SubscribeHandler, o.UnsubscribeHandler = b.subscribe, b.content.unsubscribe
	}
	if len(c.prompts)+len(c.templates)+len(c.resources) > 0 {
		o.CompletionHandler = b.complete
	}
}

// Capabilities adds to caps what extensions provide, and nothing when
// they provide nothing: logging and changing tool lists for their tools,
// and for their content, resources, prompts and completions. The lists
// follow the directories (listChanged); a kind of content the directories
// had none of when the session started stays unannounced for that
// session.
func (b *Set) Capabilities(caps *mcp.ServerCapabilities) {
	if b == nil {
		return
	}
	// Extension tools log, and come and go as their directories change.
	caps.Logging = &mcp.LoggingCapabilities{}
	caps.Tools.ListChanged = true
	if b.content == nil {
		return
	}
	c := b.content.cat.Load()
	if len(c.resources)+len(c.templates) > 0 {
		caps.Resources = &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
	}
	if len(c.prompts) > 0 {
		caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
	}
	if len(c.prompts)+len(c.templates)+len(c.resources) > 0 {
		caps.Completions = &mcp.CompletionCapabilities{}
	}
}

// AddContent registers the resources, templates and prompts.
func (b *Set) AddContent(s *mcp.Server) {
	if b == nil || b.content == nil {
		return
	}
	c := b.content
	c.mu.Lock()
	c.server = s
	c.mu.Unlock()
	b.registerExtCatalog(s, c.cat.Load())
}

// registerExtCatalog adds c's resources, templates and prompts to s
// (replacing those of the same URI or name).
func (b *Set) registerExtCatalog(s *mcp.Server, c *extCatalog) {
	for _, r := range c.resources {
		s.AddResource(r.Resource, b.readExtResource(r.Source, r.Resource.MIMEType))
	}
	for _, t := range c.templates {
		s.AddResourceTemplate(t.Template, b.readExtResource(t.Source, t.Template.MIMEType))
	}
	for _, p := range c.prompts {
		s.AddPrompt(p.Prompt, b.getExtPrompt(p))
	}
}

// readExtResource reads a resource (or a URI a template matched) through
// its provider, and returns it as text when its type is textual and it is
// UTF-8, else as a base64 blob, as the framework does. A project provider
// runs (runProvider). The file provider reads the file from the extension
// directory; a file over --max-file-size is refused. The echo provider
// returns the URI's payload. The git provider is disabled, as the
// framework's is by default: invalid params, the code the framework
// answers with then.
func (b *Set) readExtResource(src extension.Source, declared string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		var data []byte
		var err error
		switch {
		case src.Script != "":
			if data, err = b.runProvider(ctx, src, uri); err != nil {
				return nil, err
			}
			if declared == "" {
				declared = "text/plain" // the framework's default type
			}
		case src.Provider == extension.ProviderEcho:
			data = []byte(extension.Echo(uri))
			if declared == "" {
				declared = "text/plain" // the framework's default type
			}
		case src.Provider == extension.ProviderGit:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("read resource %s: %v", uri, extension.ErrProviderDisabled)}
		default:
			data, err = extension.ReadFileURI(src.Root, uri, int64(b.opt.MaxFileSize))
		}
		switch {
		case errors.Is(err, extension.ErrOutside):
			b.opt.Log.Warn("extension resource refused", "uri", uri, "reason", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("resource %s leads outside its extension directory", uri)}
		case errors.Is(err, os.ErrNotExist):
			return nil, mcp.ResourceNotFoundError(uri)
		case err != nil:
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("read resource %s: %v", uri, err)}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{extContents(uri, resourceType(declared, uri, data), data)}}, nil
	}
}

// extContents is what a read returns: text when the type is textual and
// the data UTF-8, else a base64 blob.
func extContents(uri, typ string, data []byte) *mcp.ResourceContents {
	rc := &mcp.ResourceContents{URI: uri, MIMEType: typ}
	if textual(typ) && utf8.Valid(data) {
		rc.Text = string(data)
	} else {
		rc.Blob = data
	}
	return rc
}

// resourceType is a resource's MIME type: the declared one, unless it is
// absent or the generic application/octet-stream, then the file name's,
// then the content's.
func resourceType(declared, uri string, data []byte) string {
	if declared != "" && declared != "application/octet-stream" {
		return declared
	}
	if t := mime.TypeByExtension(filepath.Ext(uri)); t != "" {
		return t
	}
	return http.DetectContentType(data)
}

// textual reports whether a MIME type is text, as the framework decides
// it (text/*, JSON, XML, YAML, CSV, JavaScript, shell scripts).
func textual(typ string) bool {
	t := strings.ToLower(typ)
	if strings.HasPrefix(t, "text/") {
		return true
	}
	for _, s := range []string{"json", "xml", "yaml", "csv", "javascript", "x-sh"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// source finds the provider that serves uri: the resource's, or the
// first matching template's. ok is false when none does.
func (c *extContent) source(uri string) (src extension.Source, ok bool) {
	cat := c.cat.Load()
	for _, r := range cat.resources {
		if r.Resource.URI == uri {
			return r.Source, true
		}
	}
	for _, t := range cat.templates {
		if extension.TemplateMatches(t.Template.URITemplate, uri) {
			return t.Source, true
		}
	}
	return extension.Source{}, false
}

// subscribe starts watching a resource for the session (resources/
// subscribe): a file by its size and time, a project provider's resource
// by what the provider prints, as the framework's poller watches it.
// The poller runs while anything is subscribed.
func (b *Set) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	src, ok := b.content.source(uri)
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	switch {
	case src.Script != "":
		// Its first state is taken by the poller: a subscription does not
		// wait for a provider's run.
		return b.content.watch(req.Session, uri, func(ctx context.Context) string { return b.providerState(ctx, src, uri) }, false)
	case src.Provider == extension.ProviderFile:
		return b.content.watch(req.Session, uri, func(context.Context) string { return fileState(src.Root, uri) }, true)
	}
	return nil // an echo resource never changes, a git one is never read
}

// watch adds the session to uri's watchers, with check to see what uri
// looks like, taken at once when now is set; the poller starts if it was
// not running. A template matches endless URIs: past extMaxWatches
// watched URIs, a new one is refused.
func (c *extContent) watch(ss *mcp.ServerSession, uri string, check func(context.Context) string, now bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.subs[uri]
	if w == nil && len(c.subs) >= extMaxWatches {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("resources/subscribe %s: %d resources are watched already, the most Boris watches at once", uri, extMaxWatches)}
	}
	if w == nil {
		w = &extWatch{sessions: map[*mcp.ServerSession]bool{}, check: check}
		if now {
			w.state, w.known = check(c.ctx), true
		}
		c.subs[uri] = w
	}
	w.sessions[ss] = true
	if !c.polling {
		c.polling = true
		go c.poll()
	}
	return nil
}

// unsubscribe stops watching a resource for the session.
func (c *extContent) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.subs[req.Params.URI]; w != nil {
		delete(w.sessions, req.Session)
		if len(w.sessions) == 0 {
			delete(c.subs, req.Params.URI)
		}
	}
	return nil
}

// poll checks the subscribed resources every extResourcePoll and sends
// notifications/resources/updated for each that changed. It returns once
// nothing is subscribed, or at close. The checks run without the lock
// held: a provider's run takes its time.
func (c *extContent) poll() {
	tick := time.NewTicker(extResourcePoll)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick.C:
		}
		c.mu.Lock()
		if len(c.subs) == 0 {
			c.polling = false
			c.mu.Unlock()
			return
		}
		watched := make(map[string]*extWatch, len(c.subs))
		maps.Copy(watched, c.subs)
		s := c.server
		c.mu.Unlock()
		for uri, w := range watched {
			st := w.check(c.ctx)
			c.mu.Lock()
			changed := c.subs[uri] == w && w.known && st != w.state
			w.state, w.known = st, true
			c.mu.Unlock()
			if changed && c.ctx.Err() == nil {
				_ = s.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
	}
}

// fileState summarises what a resource's file looks like (real path,
// size, modification time), or why it cannot be read.
func fileState(root, uri string) string {
	p, err := extension.ResolveFileURI(root, uri)
	if err != nil {
		return "error: " + err.Error()
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("%s %d %d %v", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
}

// closeContent stops the poller.
func (b *Set) closeContent() {
	if c := b.content; c != nil {
		c.cancel()
	}
}
