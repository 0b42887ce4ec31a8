package dashboard

import (
	"bufio"
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/metrics"
)

// boardShown is how many tasks of a board the dashboard lists.
const boardShown = 200

// State is what one viewer of the dashboard may see, as the page and
// its event stream carry it. Every string in it may come from a client or
// an agent: the page escapes them (html/template) and the script only ever
// sets them as text.
type State struct {
	Now    time.Time   `json:"now"`
	Viewer dashViewer  `json:"viewer"`
	Host   *dashHost   `json:"host,omitempty"` // operators only, as /metrics
	Cores  []dashCore  `json:"cores"`
	Calls  []dashCall  `json:"calls"`
	Boards []dashBoard `json:"boards"`
	// Statuses are a board's columns, in the order a person reads them.
	Statuses []dashStatus `json:"statuses"`
}

// dashStatus is a status and its column's title.
type dashStatus struct {
	Status string `json:"status"`
	Title  string `json:"title"`
}

// statuses are the board's statuses with their titles ("in_progress": "In progress").
func statuses() []dashStatus {
	out := make([]dashStatus, len(board.Statuses))
	for i, st := range board.Statuses {
		title := strings.ReplaceAll(st, "_", " ")
		out[i] = dashStatus{Status: st, Title: strings.ToUpper(title[:1]) + title[1:]}
	}
	return out
}

// SharedBoard reports whether the board shown is a team's, shared by every
// gateway given the same --tasks-db.
func (s State) SharedBoard() bool {
	return slices.ContainsFunc(s.Boards, func(b dashBoard) bool { return b.Shared })
}

// dashHost is this gateway's plots: its own sessions and calls (to an
// operator all of them, to a principal its own), whatever board it shows.
type dashHost struct {
	Name string `json:"name"` // --node-id, else the host name
	// Own plots only the viewer's own sessions and calls on this host: a
	// principal that is not an operator sees nothing of the others'.
	Own         bool         `json:"own"`
	StepSeconds float64      `json:"step_seconds"` // the time a sample covers
	Samples     []dashSample `json:"samples"`      // the last hour, oldest first
}

type dashViewer struct {
	Subject  string `json:"subject"`
	Operator bool   `json:"operator"`
}

// dashCore is a session's core or a principal's.
type dashCore struct {
	Session     string         `json:"session"` // the first 8 hex digits of its id
	Kind        string         `json:"kind"`    // "session" or "principal"
	Subject     string         `json:"subject"`
	Started     time.Time      `json:"started"`
	LastActive  time.Time      `json:"last_active"`
	AgeSeconds  float64        `json:"age_seconds"`
	IdleSeconds float64        `json:"idle_seconds"` // 0 while a call is in progress: a core at work is not idle
	Calls       []dashInflight `json:"calls"`
	RSSBytes    int64          `json:"rss_bytes"` // the core process's resident memory; -1 when unknown
}

type dashInflight struct {
	Tool           string    `json:"tool"`
	Started        time.Time `json:"started"`
	ElapsedSeconds float64   `json:"elapsed_seconds"`
}

type dashCall struct {
	At         time.Time `json:"at"`
	Tool       string    `json:"tool"`
	Subject    string    `json:"subject"`
	Session    string    `json:"session"`
	DurationMS float64   `json:"duration_ms"`
	Outcome    string    `json:"outcome"`
}

type dashBoard struct {
	Subject string         `json:"subject"` // whose board; "" for a shared one
	Shared  bool           `json:"shared"`
	Path    string         `json:"path,omitempty"` // operators only
	Counts  map[string]int `json:"counts"`
	Tasks   []dashTask     `json:"tasks"`
	More    bool           `json:"more"`
	Error   string         `json:"error,omitempty"`
}

type dashTask struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Priority    int      `json:"priority"`
	ParentID    string   `json:"parent_id"`
	BlockedBy   []string `json:"blocked_by"`
	// OpenBlockers are those of BlockedBy listed on the board and open.
	OpenBlockers []string `json:"open_blockers"`
	Ready        bool     `json:"ready"`
	// Blocked is an open task waiting for an open blocker.
	Blocked   bool   `json:"blocked"`
	UpdatedAt string `json:"updated_at"`
}

// viewer is who looks at the dashboard.
type viewer struct {
	p        Principal
	operator bool // sees every principal
}

// sees reports whether the viewer may see what belongs to subjectKey.
func (v viewer) sees(subjectKey string) bool {
	return v.operator || (subjectKey != "" && subjectKey == v.p.SubjectKey)
}

// Sessions is what the dashboard and the metrics read of the gateway's
// sessions: how many cores are open, and a snapshot of them.
type Sessions interface {
	metrics.Counts
	// Cores returns the open cores, sessions' and principals'.
	Cores() []Core
}

// Core is an open core as the dashboard sees it.
type Core struct {
	ID         string // its session's id
	Subject    string // the principal's, for display
	SubjectKey string // the principal's Principal.SubjectKey; "" until bound
	Principal  bool   // a principal's core (2026-07-28), not a session's
	Created    time.Time
	LastActive time.Time // its last request
	Pid        int       // its process; 0 if none
}

// state builds what v may see now.
func (d *Dashboard) state(ctx context.Context, v viewer) State {
	now := time.Now()
	st := State{Now: now, Viewer: dashViewer{Subject: v.p.Subject, Operator: v.operator},
		Cores: []dashCore{}, Calls: []dashCall{}, Boards: []dashBoard{}, Statuses: statuses()}
	switch {
	case v.operator: // how busy the host is, like /metrics: an operator's to see
		st.Host = &dashHost{Name: d.gw.Host, StepSeconds: sampleStep.Seconds(), Samples: d.obs.hostSeries(now)}
	case v.p.SubjectKey != "":
		st.Host = &dashHost{Name: d.gw.Host, Own: true, StepSeconds: sampleStep.Seconds(), Samples: d.obs.ownSeries(v.p.SubjectKey, now)}
	}
	inflight, calls := d.obs.activity()
	for _, e := range d.obs.sessions.Cores() {
		if !v.sees(e.SubjectKey) {
			continue
		}
		st.Cores = append(st.Cores, coreView(e, inflight[e.ID], now))
	}
	slices.SortFunc(st.Cores, func(a, b dashCore) int { return a.Started.Compare(b.Started) })
	for i := len(calls) - 1; i >= 0; i-- { // newest first
		c := calls[i]
		if v.sees(c.subjectKey) {
			st.Calls = append(st.Calls, dashCall{At: c.At, Tool: c.Tool, Subject: c.Subject, Session: c.Session,
				DurationMS: float64(c.Duration.Microseconds()) / 1000, Outcome: c.Outcome})
		}
	}
	for _, b := range d.boardsFor(v) {
		st.Boards = append(st.Boards, d.obs.readBoard(ctx, b, v.operator))
	}
	return st
}

func coreView(e Core, calls []inflightCall, now time.Time) dashCore {
	last := e.LastActive
	c := dashCore{
		Session: shortID(e.ID), Kind: "session", Subject: e.Subject, Started: e.Created, LastActive: last,
		AgeSeconds: now.Sub(e.Created).Seconds(), IdleSeconds: max(0, now.Sub(last).Seconds()),
		Calls: []dashInflight{}, RSSBytes: rss(e.Pid),
	}
	if e.Principal {
		c.Kind = "principal"
	}
	if len(calls) > 0 {
		c.IdleSeconds = 0 // its last request may be minutes old: the call it started still runs
	}
	slices.SortFunc(calls, func(a, b inflightCall) int { return a.Started.Compare(b.Started) })
	for _, ic := range calls {
		c.Calls = append(c.Calls, dashInflight{Tool: ic.Tool, Started: ic.Started, ElapsedSeconds: now.Sub(ic.Started).Seconds()})
	}
	return c
}

// activity copies the calls in progress, by session id, and the recent ones.
func (o *Observer) activity() (map[string][]inflightCall, []finishedCall) {
	o.mu.Lock()
	defer o.mu.Unlock()
	in := make(map[string][]inflightCall, len(o.inflight))
	for id, calls := range o.inflight {
		for _, c := range calls {
			in[id] = append(in[id], c)
		}
	}
	return in, slices.Clone(o.ring)
}

// rss is the resident memory of process pid (a core's) from /proc, or -1.
func rss(pid int) int64 {
	if pid == 0 {
		return -1
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// boardRef is a board the dashboard shows.
type boardRef struct {
	subject string
	path    string // a file's path or a PostgreSQL URL
	shared  bool
	pg      board.PGOptions // how to reach a PostgreSQL board
	// access, if non-nil, gives pg when the board is read: the
	// principal's own role's password (Gateway.BoardOptions).
	access func(context.Context) (board.PGOptions, error)
}

// options is how to reach ref's board now.
func (ref boardRef) options(ctx context.Context) (board.PGOptions, error) {
	if ref.access == nil {
		return ref.pg, nil
	}
	return ref.access(ctx)
}

// principalBoard is the board of the principal subjectKey at path: read
// as that principal's own PostgreSQL role where the gateway gives each
// one (Gateway.BoardOptions), never as another's.
func (d *Dashboard) principalBoard(subject, subjectKey, path string) boardRef {
	ref := boardRef{subject: subject, path: path}
	if d.gw.BoardOptions != nil && subjectKey != "" {
		ref.access = func(ctx context.Context) (board.PGOptions, error) {
			o, err := d.gw.BoardOptions(ctx, subjectKey)
			if err != nil && d.log != nil {
				d.log.Warn("the dashboard cannot reach a principal's board", "subject", subject, "err", err)
			}
			return o, err
		}
	}
	return ref
}

// boardsFor lists the boards v may see: a shared board, or v's own; an
// operator also sees those of every principal a core was started for.
func (d *Dashboard) boardsFor(v viewer) []boardRef {
	if d.gw.TasksDB != "" {
		return []boardRef{{path: d.gw.TasksDB, shared: true, pg: board.PGOptions{PasswordFile: d.gw.TasksDBPasswordFile}}}
	}
	var refs []boardRef
	if v.p.SubjectKey != "" || !v.operator || d.gw.Authenticate == nil {
		refs = append(refs, d.principalBoard(v.p.Subject, v.p.SubjectKey, v.p.Board))
	}
	if v.operator {
		for _, sp := range d.obs.seenPrincipals() {
			refs = append(refs, d.principalBoard(sp.Subject, sp.Key, sp.Board))
		}
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(refs, func(r boardRef) bool {
		dup := seen[r.path]
		seen[r.path] = true
		return dup
	})
}

// seenPrincipals lists the principals cores were started for, by subject.
func (o *Observer) seenPrincipals() []seenPrincipal {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]seenPrincipal, 0, len(o.seen))
	for _, sp := range o.seen {
		out = append(out, sp)
	}
	slices.SortFunc(out, func(a, b seenPrincipal) int { return strings.Compare(a.Subject, b.Subject) })
	return out
}

// readBoard is the board ref names as the dashboard shows it (see
// boardNow).
func (o *Observer) readBoard(ctx context.Context, ref boardRef, showPath bool) dashBoard {
	b := o.boardNow(ctx, ref)
	b.Subject, b.Shared, b.Path = ref.subject, ref.shared, ""
	if showPath {
		b.Path = board.Redact(ref.path)
	}
	return b
}

// Bounds on reading a board for the dashboard. A board is a file in a
// principal's reach (docs/reference/security.md: "bounded in time"): its read runs apart
// from the request, at most one at a time per board, and a request waits
// for it only until boardWait after it started. A read that hangs (a
// board swapped for a FIFO between its check and its open, a stuck file
// system) then costs one goroutine for that board, never one per request,
// and each request answers at once with the board shown unavailable.
const (
	boardWait        = 2 * time.Second
	boardReadTimeout = 15 * time.Second // SQLite waits out a writer for up to 10 s
)

// boardRead is a read of a board under way.
type boardRead struct {
	started time.Time
	done    chan struct{} // closed once board is set
	board   dashBoard
}

// boardUnavailable is what the dashboard shows of a board whose read has
// not finished in time.
func boardUnavailable() dashBoard {
	return dashBoard{Counts: map[string]int{}, Tasks: []dashTask{}, Error: "the board did not answer in time"}
}

// boardNow is the board at path: as last read while its file and
// write-ahead log are unchanged, for at most boardReread; else as read
// now, or unavailable if that read takes longer than boardWait.
func (o *Observer) boardNow(ctx context.Context, ref boardRef) dashBoard {
	path := ref.path
	stamp := boardStamp(path, time.Now())
	o.mu.Lock()
	cached, ok := o.boards[path]
	if ok && cached.stamp == stamp && time.Since(cached.at) < boardReread {
		o.mu.Unlock()
		return cached.board
	}
	r := o.startRead(ref, stamp)
	o.mu.Unlock()
	wait := time.NewTimer(time.Until(r.started.Add(boardWait)))
	defer wait.Stop()
	select {
	case <-r.done:
		return r.board
	case <-wait.C:
	case <-ctx.Done():
	}
	return boardUnavailable()
}

// startRead returns the read of ref's board under way, starting one if
// there is none. Called with mu held.
func (o *Observer) startRead(ref boardRef, stamp string) *boardRead {
	path := ref.path
	if r, ok := o.reading[path]; ok {
		return r
	}
	r := &boardRead{started: time.Now(), done: make(chan struct{})}
	o.reading[path] = r
	read := o.read
	if read == nil {
		read = readBoard
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), boardReadTimeout)
		defer cancel()
		if pg, err := ref.options(ctx); err != nil { // logged by access
			r.board = dashBoard{Counts: map[string]int{}, Tasks: []dashTask{}, Error: "the board cannot be reached"}
		} else {
			r.board = read(ctx, path, pg)
		}
		o.mu.Lock()
		if len(o.boards) >= maxSeenPrincipals {
			clear(o.boards)
		}
		o.boards[path] = cachedBoard{stamp: stamp, at: time.Now(), board: r.board}
		delete(o.reading, path)
		o.mu.Unlock()
		close(r.done)
	}()
	return r
}

// cachedBoard is a board as last read, and the state of its files then.
type cachedBoard struct {
	stamp string
	at    time.Time
	board dashBoard
}

// boardReread bounds how long a board is shown from its last read: two
// writes within one tick of the file system's clock that leave the
// write-ahead log's size alone change no stamp.
const boardReread = 10 * time.Second

// pgReread is how long a PostgreSQL board is shown from its last read:
// it has no file whose stamp would say it changed, and one read is a few
// queries on a connection of its own.
const pgReread = 2 * time.Second

// boardStamp is what changes when the board at path is written: for a
// file, its and its write-ahead log's stamps; for a PostgreSQL board, the
// pgReread period now falls in.
func boardStamp(path string, now time.Time) string {
	if board.IsPostgres(path) {
		return "pg@" + strconv.FormatInt(now.UnixNano()/int64(pgReread), 10)
	}
	return fileStamp(path) + "|" + fileStamp(path+"-wal")
}

// fileStamp is what changes when a file is written: its size and
// modification time ("" when it does not exist). A link is not followed.
func fileStamp(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + "@" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// readBoard reads the board at path through core/board, read-only; an
// absent board is an empty one. Its tasks are never changed afterwards:
// the result may be shared.
func readBoard(ctx context.Context, path string, pg board.PGOptions) dashBoard {
	b := dashBoard{Counts: map[string]int{}, Tasks: []dashTask{}}
	s, err := board.OpenBoardReadOnly(ctx, path, pg)
	switch {
	case errors.Is(err, board.ErrNoBoard):
		return b
	case errors.Is(err, board.ErrLink):
		b.Error = "the board is not read: a symbolic link is on its path"
		return b
	case errors.Is(err, board.ErrNotRegular):
		b.Error = "the board is not read: it is not a regular file"
		return b
	case err != nil:
		b.Error = "the board cannot be read"
		return b
	}
	defer s.Close()
	counts, err := s.Counts(ctx)
	if err != nil {
		b.Error = "the board cannot be read"
		return b
	}
	for st, n := range counts {
		b.Counts[string(st)] = n
	}
	tasks, more, err := s.List(ctx, board.Filter{Limit: boardShown})
	if err != nil {
		b.Error = "the board cannot be read"
		return b
	}
	b.More = more
	b.Tasks = cards(tasks)
	return b
}

// cards are tasks as the dashboard shows them: each blocked one marked,
// with those of its blockers listed and open.
func cards(tasks []board.Task) []dashTask {
	open := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		open[t.ID] = t.Status.Open()
	}
	out := make([]dashTask, 0, len(tasks))
	for _, t := range tasks {
		c := dashTask{ID: t.ID, Description: t.Description, Status: string(t.Status), Priority: t.Priority,
			ParentID: t.ParentID, BlockedBy: append([]string{}, t.BlockedBy...), OpenBlockers: []string{},
			Ready: t.Ready, Blocked: t.Status.Open() && !t.Ready, UpdatedAt: t.UpdatedAt}
		for _, id := range t.BlockedBy {
			if open[id] {
				c.OpenBlockers = append(c.OpenBlockers, id)
			}
		}
		out = append(out, c)
	}
	return out
}

// dashColumn is the tasks of one status, as the page's first render
// shows them.
type dashColumn struct {
	dashStatus
	Count int // on the board, listed or not
	Tasks []dashTask
}

// Columns are the board's tasks by status, in Statuses order.
func (b dashBoard) Columns() []dashColumn {
	cols := make([]dashColumn, len(board.Statuses))
	for i, st := range statuses() {
		cols[i] = dashColumn{dashStatus: st, Count: b.Counts[st.Status]}
	}
	for _, t := range b.Tasks {
		if i := slices.Index(board.Statuses, t.Status); i >= 0 {
			cols[i].Tasks = append(cols[i].Tasks, t)
		}
	}
	return cols
}
