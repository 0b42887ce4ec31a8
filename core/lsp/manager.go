// Package lsp provides diagnostics from language servers (gopls,
// pyright-langserver, typescript-language-server): a small LSP client,
// one server per language per session started at the first edit of such
// a file, and the change each edit makes to the problems the servers
// report (problems new since the edit, problems it fixed).
//
// The client speaks only what diagnostics need: initialize, didOpen and
// didChange with whole documents, and publishDiagnostics
// (https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/).
package lsp

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configure a Manager. Zero values select the defaults noted.
type Options struct {
	// Commands are --lsp's server command lines by language; a language
	// without one uses its Language.Command, found on PATH.
	Commands map[string][]string
	// Languages are the languages servers start for; nil: Languages().
	Languages map[string]Language
	// Root is the workspace root given to servers (the working directory).
	Root string
	// Env is the servers' environment: the session's commands'.
	Env []string
	// Launch starts a server's process (required).
	Launch Launcher
	// Read reads a file the way the file tools may (through the path
	// policy); what it refuses is not sent to a server.
	Read func(abs string) ([]byte, error)
	// Wait is how long an edit's result waits for diagnostics; 0: 1.5 s.
	Wait time.Duration
	// Idle stops a server unused this long; 0: 10 minutes.
	Idle time.Duration
	// Log gets what servers do; nil: discarded.
	Log *slog.Logger
}

// DefaultWait is Options.Wait's default.
const DefaultWait = 1500 * time.Millisecond

// settleBound is how long a job waits, beyond the result, for a server
// to start or answer: past it a slow server's answer is dropped.
const settleBound = 60 * time.Second

// Edit is one file a tool call wrote, with its content before.
type Edit struct {
	Path    string
	Before  []byte
	Existed bool
}

// Manager runs a session's language servers and keeps track of what the
// agent has been told about each file's problems.
type Manager struct {
	opts   Options
	mu     sync.Mutex
	slots  map[string]*slot        // by language name
	told   map[string][]Diagnostic // by path: the problems the agent knows of
	notes  []string                // one-time lines waiting for a result
	said   map[string]bool         // one-time lines already queued
	late   []*job                  // edits whose diagnostics came after their result
	closed bool
}

// New returns a Manager; it starts no server until an edit needs one.
func New(opts Options) *Manager {
	if opts.Languages == nil {
		opts.Languages = Languages()
	}
	opts.Wait = cmp.Or(opts.Wait, DefaultWait)
	opts.Idle = cmp.Or(opts.Idle, 10*time.Minute)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, slots: map[string]*slot{}, told: map[string][]Diagnostic{}, said: map[string]bool{}}
}

// Handles reports whether path's language is one servers start for.
func (m *Manager) Handles(path string) bool {
	_, _, ok := languageOf(m.opts.Languages, path)
	return ok
}

// Edited checks what edits did: it hands each file of a known language
// to its server, waits up to Options.Wait for their diagnostics, and
// returns the changes as lines for the result ("" when nothing changed).
// What arrives later is kept for Late.
func (m *Manager) Edited(edits []Edit) string {
	var jobs []*job
	for _, e := range edits {
		if j := m.submit(e); j != nil {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		return m.takeNotes()
	}
	timer := time.NewTimer(m.opts.Wait)
	defer timer.Stop()
	var changes []Change
	for _, j := range jobs {
		select {
		case <-j.done:
			changes = append(changes, j.changes...)
		case <-timer.C:
			m.keepLate(j)
			continue
		}
	}
	for _, j := range jobs {
		select {
		case <-j.done:
		default:
			m.keepLate(j)
		}
	}
	return join(m.takeNotes(), Render(changes, m.opts.Root, ""))
}

// keepLate queues j's changes for a later result, once.
func (m *Manager) keepLate(j *job) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !slices.Contains(m.late, j) {
		m.late = append(m.late, j)
	}
}

// Late returns the changes that arrived since the last result: edits
// whose diagnostics came after their result waited, and diagnostics a
// server revised on its own (a second pass, a dependency rebuilt).
func (m *Manager) Late() string {
	m.mu.Lock()
	var changes []Change
	var still []*job
	for _, j := range m.late {
		select {
		case <-j.done:
			changes = append(changes, j.changes...)
		default:
			still = append(still, j)
		}
	}
	m.late = still
	slots := m.slotList()
	m.mu.Unlock()
	for _, s := range slots {
		changes = append(changes, m.revised(s)...)
	}
	return join(m.takeNotes(), Render(changes, m.opts.Root, "late, "))
}

// revised compares what s's server now says with what the agent was
// told, for the files it was told about, when no edit is being checked.
func (m *Manager) revised(s *slot) []Change {
	srv := s.idleServer()
	if srv == nil {
		return nil
	}
	var changes []Change
	for uri, ds := range srv.snapshot() {
		if c, ok := m.tell(uriPath(uri), ds, false); ok {
			changes = append(changes, c)
		}
	}
	return changes
}

// tell records ds as what the agent knows of path and returns the change
// from what it knew. A path it knew nothing of is taken as known
// (baseline) unless fresh says its problems are news.
func (m *Manager) tell(path string, ds []Diagnostic, fresh bool) (Change, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	before, known := m.told[path]
	m.told[path] = ds
	if !known && !fresh {
		return Change{}, false
	}
	c := diff(path, before, ds)
	return c, !c.Empty()
}

// know records ds as what the agent knows of path, unless it knows
// something already.
func (m *Manager) know(path string, ds []Diagnostic) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.told[path]; !ok {
		m.told[path] = ds
	}
}

// knows reports whether the agent was told about path.
func (m *Manager) knows(path string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.told[path]
	return ok
}

// say queues a line for the next result, once per key.
func (m *Manager) say(key, line string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.said[key] {
		m.said[key] = true
		m.notes = append(m.notes, "[diagnostics] "+line)
	}
}

// takeNotes returns and clears the queued lines.
func (m *Manager) takeNotes() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := strings.Join(m.notes, "\n")
	m.notes = nil
	return s
}

// slotList lists the slots; m.mu is held.
func (m *Manager) slotList() []*slot {
	out := make([]*slot, 0, len(m.slots))
	for _, s := range m.slots {
		out = append(out, s)
	}
	return out
}

// slotFor returns lang's slot, made at first use.
func (m *Manager) slotFor(lang Language) (*slot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("diagnostics: the session is ending")
	}
	if s := m.slots[lang.Name]; s != nil {
		return s, nil
	}
	s := &slot{m: m, lang: lang, argv: m.command(lang), jobs: make(chan *job, 64)}
	m.slots[lang.Name] = s
	go s.work()
	return s, nil
}

// command is lang's server command line: --lsp's, else its default.
func (m *Manager) command(lang Language) []string {
	if argv := m.opts.Commands[lang.Name]; len(argv) > 0 {
		return argv
	}
	return lang.Command
}

// lookPath finds name on the servers' PATH.
func (m *Manager) lookPath(name string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return exec.LookPath(name)
	}
	for _, kv := range slices.Backward(m.opts.Env) {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
					return p, nil
				}
			}
			return "", fmt.Errorf("%s: not found on PATH", name)
		}
	}
	return exec.LookPath(name)
}

// Close stops every server and waits for them.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	slots := m.slotList()
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Go(s.close)
	}
	wg.Wait()
}

// join joins the non-empty parts with newlines.
func join(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "\n")
}

// pathURI is the file URI of an absolute path.
func pathURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath is the path of a file URI (the URI itself when it is not one).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

// splitLines splits s into its non-empty trimmed lines.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
