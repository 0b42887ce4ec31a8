package lsp

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// slot is one language's place in a session: its server while it runs,
// and the queue of work for it, done in order by one goroutine so that
// the server sees every file's versions in the order they were written.
type slot struct {
	m    *Manager
	lang Language
	argv []string
	jobs chan *job

	mu       sync.Mutex
	srv      *server
	failures int  // starts that failed and exits unasked
	off      bool // no server, or it crashed twice: not started again
	busy     int  // jobs queued or running
	idle     *time.Timer
	closed   bool
}

// job is one piece of work for a slot: an edit to check, or a query of
// current problems (the diagnostics tool).
type job struct {
	edit    *Edit    // an edit to check
	query   []string // files to query; empty with all: every open one
	all     bool
	wait    time.Duration
	id      string // the edited file's languageId
	done    chan struct{}
	changes []Change                // an edit's
	current map[string][]Diagnostic // a query's, by path
	err     error
}

// errOff is returned for a language whose server is not started.
var errOff = errors.New("no language server running")

// submit queues an edit for its language's server; nil when the file's
// language has none.
func (m *Manager) submit(e Edit) *job {
	lang, id, ok := languageOf(m.opts.Languages, e.Path)
	if !ok {
		return nil
	}
	s, err := m.slotFor(lang)
	if err != nil {
		return nil
	}
	j := &job{edit: &e, id: id, done: make(chan struct{})}
	if !s.queue(j) {
		return nil
	}
	return j
}

// queue hands j to the worker; false when the language is off.
func (s *slot) queue(j *job) bool {
	s.mu.Lock()
	if s.off || s.closed {
		s.mu.Unlock()
		return false
	}
	s.busy++
	s.mu.Unlock()
	s.jobs <- j
	return true
}

// work runs the jobs in order until the slot closes.
func (s *slot) work() {
	for j := range s.jobs {
		if j.edit != nil {
			s.retry(j, s.checkEdit)
		} else {
			s.retry(j, s.runQuery)
		}
		s.mu.Lock()
		s.busy--
		s.armIdle()
		s.mu.Unlock()
		close(j.done)
	}
}

// retry runs do on the server, and once more on a fresh one when the
// server crashed under it.
func (s *slot) retry(j *job, do func(srv *server, j *job, warm bool) bool) {
	for range 2 {
		srv, warm, err := s.server()
		if err != nil {
			j.err = err
			return
		}
		if do(srv, j, warm) || !srv.crashed() {
			return
		}
	}
}

// server returns the running server, starting it if need be; warm
// reports whether it was already running. A server that fails (does not
// start, or exits unasked) is started again once; at the second failure,
// or when there is no server to start, the language is off for the
// session, which is said once.
func (s *slot) server() (*server, bool, error) {
	for {
		srv, warm, again, err := s.tryServer()
		if !again {
			return srv, warm, err
		}
	}
}

// tryServer is one attempt of server; again reports that the server
// failed to start and should be tried once more. The slot's lock is not
// held while a server starts, which takes seconds: results and the idle
// timer do not wait for it.
func (s *slot) tryServer() (srv *server, warm, again bool, err error) {
	s.mu.Lock()
	if s.srv != nil && s.srv.alive() {
		defer s.mu.Unlock()
		return s.srv, true, false, nil
	}
	if s.srv != nil && s.srv.crashed() && s.fail(fmt.Sprintf("crashed (%s)", s.srv.why())) {
		s.mu.Unlock()
		return nil, false, false, errOff
	}
	s.srv = nil
	off := s.off || s.closed
	s.mu.Unlock()
	if off {
		return nil, false, false, errOff
	}
	if _, err := s.m.lookPath(s.argv[0]); err != nil {
		s.mu.Lock()
		s.off = true
		s.mu.Unlock()
		s.m.say("none:"+s.lang.Name, fmt.Sprintf("no %s language server (%s is not on PATH): %s edits are not checked. Install it (%s) or name one with --lsp %s=COMMAND", s.lang.Title, s.argv[0], s.lang.Title, s.lang.Install, s.lang.Name))
		return nil, false, false, fmt.Errorf("%w for %s", errNoServer, s.lang.Title)
	}
	began := time.Now()
	srv, err = launch(s.m.opts.Launch, s.lang, s.argv, s.m.opts.Root, s.m.opts.Env, s.m.opts.Log)
	if err == nil && !s.adopt(srv) {
		srv.kill()
		return nil, false, false, errOff
	}
	if err == nil {
		if err = srv.initialize(s.m.opts.Root, settleBound); err != nil {
			err = fmt.Errorf("initialize: %w%s", err, srv.stderr.say())
			srv.kill()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.srv = nil
		return nil, false, !s.closed && !s.fail(fmt.Sprintf("did not start (%v)", err)), err
	}
	s.m.opts.Log.Info("language server started", "language", s.lang.Name, "command", strings.Join(s.argv, " "), "pid", srv.pid, "took", time.Since(began).Round(time.Millisecond))
	return srv, false, false, nil
}

// adopt makes srv, launched, the slot's server (so that close stops it
// even while it starts); false when the slot closed meanwhile.
func (s *slot) adopt(srv *server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.srv = srv
	return true
}

// fail counts a failure of the server, said how: the first is logged and
// the server restarted; the second turns the language off, said once. It
// reports whether the language is now off. s.mu is held.
func (s *slot) fail(how string) bool {
	s.failures++
	s.m.opts.Log.Warn("language server failed", "language", s.lang.Name, "how", how, "failures", s.failures)
	if s.failures < 2 {
		return false
	}
	s.off, s.srv = true, nil
	s.m.say("failed:"+s.lang.Name, fmt.Sprintf("the %s language server (%s) %s after a restart: %s edits are no longer checked in this session", s.lang.Title, s.argv[0], how, s.lang.Title))
	return true
}

// armIdle (re)starts the idle timer; s.mu is held.
func (s *slot) armIdle() {
	if s.idle != nil {
		s.idle.Stop()
	}
	s.idle = time.AfterFunc(s.m.opts.Idle, s.stopIdle)
}

// stopIdle stops the server if nothing used it since the timer was set.
func (s *slot) stopIdle() {
	s.mu.Lock()
	srv := s.srv
	if s.busy > 0 || srv == nil {
		s.mu.Unlock()
		return
	}
	s.srv = nil
	s.mu.Unlock()
	s.m.opts.Log.Info("language server stopped: idle", "language", s.lang.Name, "idle", s.m.opts.Idle)
	srv.stop()
}

// idleServer returns the running server when no job is queued or running.
func (s *slot) idleServer() *server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy > 0 || s.srv == nil || !s.srv.alive() {
		return nil
	}
	return s.srv
}

// close stops the worker and the server.
func (s *slot) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.idle != nil {
		s.idle.Stop()
	}
	close(s.jobs)
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.stop()
	}
}

// checkEdit hands an edit to srv and records the changes it made to the
// problems: the edited file's against what the agent was told (or, the
// first time, the server's view of the file before the edit), and any
// other file whose problems changed meanwhile. False when the server
// ended before it answered.
func (s *slot) checkEdit(srv *server, j *job, warm bool) bool {
	m, path := s.m, j.edit.Path
	uri := pathURI(path)
	stop := srv.until(settleBound)
	if !m.knows(path) && !srv.isOpen(uri) {
		if ds, ok := s.baseline(srv, j, stop); ok {
			m.know(path, ds)
		} else {
			return false
		}
	}
	before := srv.snapshot()
	for u, ds := range before {
		m.know(uriPath(u), ds)
	}
	now, err := m.opts.Read(path)
	if err != nil {
		return true // gone or refused since: nothing to check
	}
	v, seq, _, err := srv.sync(uri, j.id, string(now))
	if err != nil {
		return false
	}
	ds, ok := srv.await(uri, v, seq, stop)
	if !ok {
		return false
	}
	if c, ok := m.tell(path, ds, true); ok {
		j.changes = append(j.changes, c)
	}
	for u, ds := range srv.snapshot() {
		if u != uri && !slices.Equal(before[u], ds) {
			if c, ok := m.tell(uriPath(u), ds, warm); ok {
				j.changes = append(j.changes, c)
			}
		}
	}
	return true
}

// baseline opens the file as it was before the edit and returns the
// server's problems with it: none for a file the edit created.
func (s *slot) baseline(srv *server, j *job, stop <-chan struct{}) ([]Diagnostic, bool) {
	if !j.edit.Existed {
		return nil, true
	}
	uri := pathURI(j.edit.Path)
	v, seq, _, err := srv.sync(uri, j.id, string(j.edit.Before))
	if err != nil {
		return nil, false
	}
	return srv.await(uri, v, seq, stop)
}

// runQuery brings the server up to date with the files on disk (those
// asked for, or every open one) and collects their current problems,
// waiting up to j.wait for the server's answers.
func (s *slot) runQuery(srv *server, j *job, _ bool) bool {
	paths := j.query
	if j.all {
		for _, uri := range srv.openDocs() {
			paths = append(paths, uriPath(uri))
		}
	}
	stop := srv.until(j.wait)
	type pending struct {
		uri      string
		v, seq   int
		awaiting bool
	}
	var waits []pending
	for _, p := range paths {
		text, err := s.m.opts.Read(p)
		if err != nil {
			continue
		}
		_, id, _ := languageOf(s.m.opts.Languages, p)
		uri := pathURI(p)
		v, seq, sent, err := srv.sync(uri, id, string(text))
		if err != nil {
			return false
		}
		waits = append(waits, pending{uri, v, seq, sent})
	}
	for _, w := range waits {
		if w.awaiting {
			srv.await(w.uri, w.v, w.seq, stop)
		}
	}
	j.current = map[string][]Diagnostic{}
	for u, ds := range srv.snapshot() {
		if j.all || slices.Contains(j.query, uriPath(u)) {
			j.current[uriPath(u)] = ds
		}
	}
	return srv.alive()
}
