package core

//lint:file-ignore SA1019 roots are deprecated by the 2026-07-28 revision but still what 2025 clients send to scope a session (docs/reference/core.md#path-scoping)

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP roots (2025 revisions, docs/reference/core.md#workspaces): with no --allow-dir, a client that
// offers roots decides which directories the file tools may touch, as
// server-filesystem does; a roots/list_changed notification makes Boris
// ask again. --allow-dir, when given, always wins: a client never widens
// what the operator allowed. Commands (bash) keep the confinement the
// session started with.

// rootsWait bounds how long a tool call waits for the client's first
// answer to roots/list before it runs on the policy as it stands.
const rootsWait = 5 * time.Second

// rootsState tracks the client's roots.
type rootsState struct {
	mu      sync.Mutex
	pending chan struct{} // closed once the latest roots/list is answered; nil when none is asked
	asked   int           // roots/list requests started, the latest first to apply

	fetchMu sync.Mutex // one roots/list at a time
	applied int        // the request whose answer the policy holds
}

// rootsFollowed reports whether the client's roots decide the allowed
// directories: no --allow-dir.
func (b *boris) rootsFollowed() bool { return len(b.cfg.AllowDirs) == 0 }

// expectRoots is receiving middleware: when a client that offers roots
// initializes, tool calls from then on wait for its roots (awaitRoots),
// which are asked for once it says it is initialized. Deciding at
// initialize, not at initialized, closes the window in which a call
// handled before that notification would run on the wider policy.
func (b *boris) expectRoots(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "initialize" && b.rootsFollowed() {
			if p, ok := req.GetParams().(*mcp.InitializeParams); ok && capsOfferRoots(p.Capabilities) {
				b.roots.mu.Lock()
				b.roots.pending = make(chan struct{})
				b.roots.mu.Unlock()
			}
		}
		return next(ctx, method, req)
	}
}

// onInitialized asks a client that offers roots for them, in the
// background: the answer arrives on the connection this notification
// came on, and tool calls wait for it (awaitRoots).
func (b *boris) onInitialized(_ context.Context, req *mcp.InitializedRequest) {
	b.roots.mu.Lock()
	pending := b.roots.pending
	b.roots.mu.Unlock()
	if pending != nil {
		b.askRoots(req.Session, pending)
	}
}

// onRootsChanged asks again for the roots after notifications/roots/list_changed.
func (b *boris) onRootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	if !b.rootsFollowed() || !offersRoots(req.Session) {
		return
	}
	done := make(chan struct{})
	b.roots.mu.Lock()
	b.roots.pending = done
	b.roots.mu.Unlock()
	b.askRoots(req.Session, done)
}

// askRoots starts a roots/list request, the latest so far, and closes
// done once its answer is applied.
func (b *boris) askRoots(ss *mcp.ServerSession, done chan struct{}) {
	b.roots.mu.Lock()
	b.roots.asked++
	n := b.roots.asked
	b.roots.mu.Unlock()
	go func() {
		defer close(done)
		b.fetchRoots(ss, n)
	}()
}

// offersRoots reports whether the session's client declared roots.
func offersRoots(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && capsOfferRoots(p.Capabilities)
}

// capsOfferRoots reports whether capabilities declare roots. The SDK
// decodes the capability into a struct, not a pointer, so "roots": {}
// cannot be told from no roots; a client declares it with listChanged,
// as the SDKs' clients do.
func capsOfferRoots(c *mcp.ClientCapabilities) bool {
	return c != nil && (c.RootsV2 != nil || c.Roots.ListChanged)
}

// fetchRoots asks for the roots and makes the valid ones (existing
// directories, symlinks resolved) the allowed directories, with the
// workspaces root when there is one. With none valid, the policy stays.
// Request n is skipped when a later one has already applied: changes
// notified in quick succession end on the latest list.
func (b *boris) fetchRoots(ss *mcp.ServerSession, n int) {
	b.roots.fetchMu.Lock()
	defer b.roots.fetchMu.Unlock()
	if n < b.roots.applied {
		return
	}
	b.roots.applied = n
	ctx, cancel := context.WithTimeout(context.Background(), rootsWait)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		b.log.Warn("asking the client for its roots failed; the allowed directories stay as they were", "err", err)
		return
	}
	var dirs []string
	for _, r := range res.Roots {
		if dir, ok := rootDir(r.URI); ok {
			dirs = append(dirs, dir)
		} else {
			b.log.Warn("skipping a root that is not an existing directory", "uri", r.URI)
		}
	}
	if len(dirs) == 0 {
		if len(res.Roots) == 0 {
			b.log.Debug("the client offers no roots; the allowed directories stay as they were")
		} else {
			b.log.Warn("the client offered no valid root; the allowed directories stay as they were")
		}
		return
	}
	if b.workspaces.Root != nil {
		dirs = append(dirs, b.workspaces.Root.Dir())
	}
	if err := b.policy.SetAllowed(dirs); err != nil {
		b.log.Warn("the client's roots could not be applied", "err", err)
		return
	}
	b.log.Info("allowed directories follow the client's roots", "dirs", strings.Join(dirs, ", "))
}

// rootDir turns a root's URI (file:// or a plain absolute path) into a
// real directory path.
func rootDir(uri string) (string, bool) {
	p := uri
	if strings.HasPrefix(uri, "file://") {
		u, err := url.Parse(uri)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return "", false
		}
		p = u.Path
	}
	if !filepath.IsAbs(p) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", false
	}
	return real, true
}

// awaitRoots holds a tool call until the client has answered the latest
// roots/list (at most rootsWait), so no call runs on a policy the client's
// roots are about to narrow.
func (b *boris) awaitRoots(ctx context.Context) {
	b.roots.mu.Lock()
	pending := b.roots.pending
	b.roots.mu.Unlock()
	if pending == nil {
		return
	}
	t := time.NewTimer(rootsWait)
	defer t.Stop()
	select {
	case <-pending:
	case <-ctx.Done():
	case <-t.C:
	}
}
