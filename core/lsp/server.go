package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"
)

// Launcher starts a server's process: argv in dir with env, files as its
// stdin, stdout and stderr, in a process group of its own. It returns the
// process id (as the host sees it) and a channel that receives the wait
// status once it has exited. The core's launcher starts it the way the
// session's commands start: confined by the sandbox.
type Launcher func(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error)

// doc is a document open in a server.
type doc struct {
	version int
	text    string
}

// published is the latest diagnostics a server published for a document.
type published struct {
	version  int // the document version they are for; -1 when the server did not say
	afterSeq int // how many changes had been sent when they arrived
	diags    []Diagnostic
	seen     bool // any publish at all
}

// server is one running language server.
type server struct {
	lang   Language
	argv   []string
	conn   *conn
	pid    int
	exited chan struct{} // closed once the process has ended
	status syscall.WaitStatus
	stderr *tail
	log    *slog.Logger

	mu       sync.Mutex
	docs     map[string]*doc      // by URI
	diags    map[string]published // by URI
	sent     int                  // changes (opens included) sent
	changed  chan struct{}        // closed and replaced at every publish
	stopping bool
}

// launch starts argv for lang in root; the handshake (initialize) is
// the caller's.
func launch(launch Launcher, lang Language, argv []string, root string, env []string, log *slog.Logger) (*server, error) {
	s := &server{lang: lang, argv: argv, exited: make(chan struct{}), stderr: &tail{}, log: log,
		docs: map[string]*doc{}, diags: map[string]published{}, changed: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	pid, wait, err := launch(argv, root, env, [3]*os.File{inR, outW, errW})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	s.pid = pid
	go s.stderr.drain(errR)
	go func() {
		s.status = <-wait
		outR.Close() // a grandchild holding stdout open must not keep the reader alive
		close(s.exited)
	}()
	s.conn = newConn(outR, inW, s.handle)
	return s, nil
}

// initialize performs the LSP handshake: initialize, then initialized.
func (s *server) initialize(root string, deadline time.Duration) error {
	uri := pathURI(root)
	params := map[string]any{
		// No processId: servers watch the pid they are given and exit when
		// they cannot signal it, which a confined server (Landlock signal
		// scoping, a PID namespace) cannot. Boris ends them itself.
		"processId":        nil,
		"rootUri":          uri,
		"rootPath":         root,
		"clientInfo":       map[string]string{"name": "boris"},
		"workspaceFolders": []map[string]string{{"uri": uri, "name": "workspace"}},
		"capabilities": map[string]any{
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	stop := s.until(deadline)
	if err := s.conn.call(stop, "initialize", params, nil); err != nil {
		return err
	}
	return s.conn.notify("initialized", struct{}{})
}

// until is a channel closed after d or when the server exits.
func (s *server) until(d time.Duration) <-chan struct{} {
	stop := make(chan struct{})
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.exited:
		}
		close(stop)
	}()
	return stop
}

// handle answers the server's requests and records its diagnostics.
func (s *server) handle(msg message) (any, bool) {
	switch msg.Method {
	case "textDocument/publishDiagnostics":
		s.publish(msg.Params)
		return nil, false
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		return make([]any, len(p.Items)), true // no settings: each server's defaults
	}
	return nil, true // window/workDoneProgress/create, client/registerCapability, ...: acknowledged
}

// publish records a textDocument/publishDiagnostics notification.
func (s *server) publish(raw json.RawMessage) {
	var p struct {
		URI         string           `json:"uri"`
		Version     *int             `json:"version"`
		Diagnostics []wireDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pub := published{version: -1, afterSeq: s.sent, diags: fromWire(p.Diagnostics), seen: true}
	if p.Version != nil {
		pub.version = *p.Version
	}
	s.diags[p.URI] = pub
	s.log.Debug("diagnostics published", "uri", p.URI, "version", pub.version, "count", len(pub.diags))
	close(s.changed)
	s.changed = make(chan struct{})
}

// sync makes the server see text as uri's content, opening it if need
// be, and returns the version and the sequence number to wait for. It
// reports false when the server already has that text.
func (s *server) sync(uri, languageID, text string) (version, seq int, sent bool, err error) {
	s.mu.Lock()
	d := s.docs[uri]
	if d != nil && d.text == text {
		v := d.version
		s.mu.Unlock()
		return v, 0, false, nil
	}
	s.sent++
	seq = s.sent
	if d == nil {
		d = &doc{version: 1, text: text}
		s.docs[uri] = d
		s.mu.Unlock()
		err = s.conn.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": languageID, "version": 1, "text": text}})
		return 1, seq, true, err
	}
	d.version++
	d.text = text
	version = d.version
	s.mu.Unlock()
	err = s.conn.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]string{{"text": text}},
	})
	return version, seq, true, err
}

// await waits until the server has published diagnostics for version of
// uri (or, when it does not say versions, any published after change seq
// was sent), the deadline passes or the server exits. For a language
// whose server publishes a file's problems in parts (Language.Settle), it
// then waits until the server has been quiet that long.
func (s *server) await(uri string, version, seq int, stop <-chan struct{}) ([]Diagnostic, bool) {
	clean := s.probe(uri, stop)
	for {
		s.mu.Lock()
		p, ch := s.diags[uri], s.changed
		s.mu.Unlock()
		if p.seen && (p.version >= version || p.version < 0 && p.afterSeq >= seq) {
			return s.settle(uri, p.diags, ch, stop), true
		}
		select {
		case <-ch:
		case <-clean:
			return nil, true
		case <-stop:
			return nil, false
		}
	}
}

// probe, for a language with a Probe and a document whose latest
// diagnostics are none, asks the server whether it still has none: the
// returned channel is closed if so (nil, never closed, otherwise). A
// server that publishes nothing when a file stays clean is then not
// waited for; one with problems to say publishes them.
func (s *server) probe(uri string, stop <-chan struct{}) <-chan struct{} {
	s.mu.Lock()
	p := s.diags[uri]
	s.mu.Unlock()
	if s.lang.Probe == nil || !p.seen || len(p.diags) > 0 {
		return nil
	}
	clean := make(chan struct{})
	go func() {
		call := func(method string, params, result any) error { return s.conn.call(stop, method, params, result) }
		ok, err := s.lang.Probe(call, uriPath(uri))
		if err != nil {
			s.log.Debug("diagnostics probe failed", "uri", uri, "err", err)
			return
		}
		if ok {
			close(clean)
		}
	}()
	return clean
}

// settle waits for the server to be quiet for the language's Settle,
// returning uri's latest diagnostics.
func (s *server) settle(uri string, ds []Diagnostic, ch <-chan struct{}, stop <-chan struct{}) []Diagnostic {
	if s.lang.Settle == 0 {
		return ds
	}
	for {
		quiet := time.NewTimer(s.lang.Settle)
		select {
		case <-ch:
			quiet.Stop()
			s.mu.Lock()
			ds, ch = s.diags[uri].diags, s.changed
			s.mu.Unlock()
		case <-quiet.C:
			return ds
		case <-stop:
			quiet.Stop()
			return ds
		}
	}
}

// snapshot copies the latest diagnostics of every document.
func (s *server) snapshot() map[string][]Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]Diagnostic, len(s.diags))
	for uri, p := range s.diags {
		out[uri] = p.diags
	}
	return out
}

// isOpen reports whether uri is open in the server.
func (s *server) isOpen(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri] != nil
}

// openDocs lists the open documents' URIs.
func (s *server) openDocs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.docs))
	for uri := range s.docs {
		out = append(out, uri)
	}
	return out
}

// alive reports whether the process still runs.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// stop asks the server to shut down and exit (LSP shutdown, then exit),
// then kills its process group if it has not gone within a moment. A
// server that does not answer shutdown within a second is killed at once:
// the session that ends waits for it no longer than that.
func (s *server) stop() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	answered := false
	if s.alive() && s.conn.call(s.until(time.Second), "shutdown", nil, nil) == nil {
		answered = true
		_ = s.conn.notify("exit", nil)
	}
	_ = s.conn.w.Close()
	if answered {
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
		}
	}
	s.kill()
}

// kill kills the server's process group and waits for it.
func (s *server) kill() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	_ = syscall.Kill(-s.pid, syscall.SIGKILL)
	_ = syscall.Kill(s.pid, syscall.SIGKILL)
	_ = s.conn.w.Close()
	<-s.exited
}

// crashed reports whether the server ended without being asked to.
func (s *server) crashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.alive() && !s.stopping
}

// why describes how the server ended, with the end of what it wrote on
// stderr.
func (s *server) why() string {
	return describe(s.status) + s.stderr.say()
}

// describe says how a process ended.
func describe(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}

// errNoServer is wrapped when a language has no server to start.
var errNoServer = errors.New("no language server")

// tail keeps the last bytes a server wrote on stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 1024

// drain reads f to its end, keeping the last tailBytes.
func (t *tail) drain(f *os.File) {
	defer f.Close()
	b := make([]byte, 4096)
	for {
		n, err := f.Read(b)
		t.mu.Lock()
		t.buf = append(t.buf, b[:n]...)
		if len(t.buf) > tailBytes {
			t.buf = t.buf[len(t.buf)-tailBytes:]
		}
		t.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// say is ": " and the last line of stderr, or "".
func (t *tail) say() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := splitLines(string(t.buf))
	if len(lines) == 0 {
		return ""
	}
	return ": " + lines[len(lines)-1]
}
