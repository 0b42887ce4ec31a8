package dashboard

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/core/board"
)

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
