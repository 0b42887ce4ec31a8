// Package seen provides what a session knows of the files it has seen:
// the state in which it last viewed or wrote each one, and, when a file
// has changed since, who changed it, read from the checkpoints (the
// session's own bash command, another session's call, or a change made
// outside Boris), so an edit can say that the agent's picture is old.
package seen

import (
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/mjkoo/boris/core/checkpoint"
)

// Tracker remembers how the session last saw each file. A nil *Tracker
// remembers nothing.
type Tracker struct {
	mu    sync.Mutex
	files map[string]mark
}

// Mark is when the session last saw a file: the time, and the newest
// checkpoint then (when the store was open).
type Mark struct {
	At     time.Time
	Seq    int  // the newest checkpoint's sequence number
	HasSeq bool // Seq was read
}

// mark is a file as the session last saw it.
type mark struct {
	id identity
	Mark
}

// identity tells one state of a file from another without reading it: a
// write in place changes its size or modification time, an atomic
// replacement (sed -i, an editor, Boris) its inode too.
type identity struct {
	size, mtime, ctime int64
	ino                uint64
}

// identify returns fi's identity.
func identify(fi fs.FileInfo) identity {
	id := identity{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = st.Ino
		id.ctime = ctimeNano(st)
	}
	return id
}

// New returns an empty tracker.
func New() *Tracker { return &Tracker{files: map[string]mark{}} }

// Saw notes that the session now knows abs as fi describes it: it viewed
// it, or wrote it itself. rec's newest checkpoint marks the moment.
func (t *Tracker) Saw(abs string, fi fs.FileInfo, rec *checkpoint.Recorder) {
	if t == nil || fi == nil {
		return
	}
	m := mark{id: identify(fi), Mark: Mark{At: time.Now()}}
	m.Seq, m.HasSeq = rec.Mark()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files[abs] = m
}

// Since reports whether abs, now as fi describes it, differs from how the
// session last saw it, and when that was; false when it never saw it.
func (t *Tracker) Since(abs string, fi fs.FileInfo) (at Mark, changed bool) {
	if t == nil || fi == nil {
		return Mark{}, false
	}
	t.mu.Lock()
	m, ok := t.files[abs]
	t.mu.Unlock()
	if !ok {
		return Mark{}, false
	}
	return m.Mark, m.id != identify(fi)
}
