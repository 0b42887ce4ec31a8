package checkpoint

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher tells a recording which paths of the tree may have changed since
// the last one, so that a bash command that changed nothing costs no git
// process and one that changed a file costs a status of just that file,
// not a scan of the whole tree. It is an inotify instance with a watch on
// every directory of the tree (but .git and the excluded state directory).
//
// It has no goroutine: the kernel queues events as they happen, and
// changes drains the queue without blocking. A command's changes are all
// queued by the time it has exited, because inotify queues an event in
// the system call that made the change. When the queue overflowed, or a
// watch could not be added, changes says "anything may have changed" and
// the recording scans the whole tree, as without a watcher.
type watcher struct {
	fd      int
	tree    string
	skip    func(rel string) bool // directories not to watch
	dirs    map[int32]string      // watch descriptor → directory, relative ("" is the tree)
	pending map[string]bool       // changed paths not yet handed out
	all     bool                  // anything may have changed
	broken  bool                  // a directory went unwatched: always all
	lost    bool                  // an event was lost (the queue overflowed), ever
	buf     []byte
	// since, when set, gives the moment from which changes must be
	// found although no watch saw them: a command started before the
	// watches were all added (catchUp). false: none did.
	since func() (time.Time, bool)
	// touched holds directories an entry may have left unseen (a command
	// removed or moved it before the directory was watched): handed out
	// as "dir/" by pendingPaths.
	touched map[string]bool
	// brokeBy is why a directory went unwatched after the watcher was
	// up (the watch limit reached mid-session), for the recorder to say.
	brokeBy error
}

// maxPending is how many changed paths are kept before the watcher gives
// up naming them and the next recording scans the whole tree.
const maxPending = 512

// watchMask is every change a checkpoint records: contents, mode, entries
// coming and going. The watch of a directory that is deleted or moved
// away is dropped by the kernel (IN_IGNORED) or by the watcher.
const watchMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_CREATE |
	unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF |
	unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// newWatcher watches every directory of tree not skipped. It fails when
// inotify is not available or the user's watch limit is too low for the
// tree; the caller then scans the whole tree at every recording.
func newWatcher(tree string, skip func(rel string) bool) (*watcher, error) {
	return newWatcherSince(tree, skip, nil)
}

// newWatcherSince is newWatcher with since (see watcher.since).
func newWatcherSince(tree string, skip func(rel string) bool, since func() (time.Time, bool)) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	// all: the first recording after it scans everything, since what
	// changed before the watches were there is unknown.
	w := &watcher{fd: fd, tree: tree, skip: skip, dirs: map[int32]string{}, pending: map[string]bool{},
		all: true, buf: make([]byte, 64<<10), since: since, touched: map[string]bool{}}
	if err := w.addTree(""); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *watcher) close() { _ = unix.Close(w.fd) }

// addTree watches the directory rel and every directory under it.
func (w *watcher) addTree(rel string) error {
	return filepath.WalkDir(filepath.Join(w.tree, filepath.FromSlash(rel)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == w.tree {
				return err
			}
			return nil // gone or unreadable: a status of its parent covers it
		}
		r, _ := filepath.Rel(w.tree, p)
		r = filepath.ToSlash(r)
		if r == "." {
			r = ""
		}
		if !d.IsDir() {
			w.catchUp(p, r, false)
			return nil
		}
		if r != "" && (d.Name() == ".git" || w.skip(r)) {
			return filepath.SkipDir
		}
		wd, err := unix.InotifyAddWatch(w.fd, p, watchMask)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return filepath.SkipDir // gone since it was listed
		}
		if err != nil {
			return os.NewSyscallError("inotify_add_watch "+p, err)
		}
		w.dirs[int32(wd)] = r
		w.catchUp(p, r, true)
		return nil
	})
}

// ctimeSlack is how far before a command's start a change time still
// counts as the command's: the kernel stamps files from a clock that may
// lag the one Boris reads by a tick or more.
const ctimeSlack = 50 * time.Millisecond

// catchUp runs for each path addTree meets, after the watch of its
// directory is added: when a command started before that watch, what it
// changed there since is in no event, so the change time says. A file
// changed since the command started is pending; a directory changed
// since (an entry made, removed or moved) is touched, since what it
// lost is named by nothing left on disk (what it gained is named by its
// own change time).
func (w *watcher) catchUp(abs, rel string, dir bool) {
	if w.since == nil {
		return
	}
	t0, ok := w.since()
	if !ok {
		return
	}
	var st unix.Stat_t
	if unix.Lstat(abs, &st) != nil {
		return // gone since it was listed: its parent's change time names it
	}
	if time.Unix(st.Ctim.Unix()).Before(t0.Add(-ctimeSlack)) {
		return
	}
	if dir {
		w.touched[rel] = true
	} else {
		w.pending[rel] = true
	}
}

// forget drops the watches of rel and of every directory under it (a
// directory moved away: its watches would report the old path).
func (w *watcher) forget(rel string) {
	for wd, d := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			delete(w.dirs, wd)
		}
	}
}

// changes drains the queue and returns the paths (relative to the tree)
// that may have changed since the last call, or all when anything may
// have: the queue overflowed, too many paths changed to name, or a
// directory could not be watched (from then on, always all).
func (w *watcher) changes() (paths []string, all bool) {
	w.drain()
	all = w.all || w.broken || len(w.pending) > maxPending || w.touched[""]
	if !all {
		paths = make([]string, 0, len(w.pending))
		for p := range w.pending {
			paths = append(paths, p)
		}
		sort.Strings(paths)
	}
	w.pending, w.touched, w.all = map[string]bool{}, map[string]bool{}, false
	return paths, all
}

// pendingPaths drains the queue and lists the changed paths not handed
// out yet, keeping them; all when it cannot say (a directory unwatched,
// an event ever lost, too many paths).
func (w *watcher) pendingPaths() (paths []string, all bool) {
	w.drain()
	if w.broken || w.lost || len(w.pending)+len(w.touched) > maxPending {
		return nil, true
	}
	paths = make([]string, 0, len(w.pending)+len(w.touched))
	for p := range w.pending {
		paths = append(paths, p)
	}
	for d := range w.touched {
		paths = append(paths, cmp.Or(d, ".")+"/")
	}
	return paths, false
}

// markPending adds paths to what changes will hand out.
func (w *watcher) markPending(paths []string) {
	w.drain()
	for _, p := range paths {
		w.pending[p] = true
	}
}

// isPending reports whether rel has changed and not been handed out yet.
func (w *watcher) isPending(rel string) bool { return w.pending[rel] }

// forgetPending drops paths from what changes will hand out: they have
// been recorded by name.
func (w *watcher) forgetPending(paths []string) {
	for _, p := range paths {
		delete(w.pending, p)
	}
}

// drain reads every queued event.
func (w *watcher) drain() {
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return // EAGAIN: the queue is empty
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			w.event(ev.Wd, ev.Mask, strings.TrimRight(string(nameBytes), "\x00"))
		}
	}
}

// event notes one event.
func (w *watcher) event(wd int32, mask uint32, name string) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		w.overflowed()
		return
	}
	dir, ok := w.dirs[wd]
	if !ok {
		return // a watch already dropped
	}
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd)
		return
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0 {
		// Named by the event in its parent (which also covers the tree
		// itself going away: its parent is not watched, so all).
		if dir == "" {
			w.all = true
		}
		return
	}
	p := path.Join(dir, name)
	if dir == "" {
		p = name
	}
	w.pending[p] = true
	if mask&unix.IN_ISDIR == 0 {
		return
	}
	if mask&unix.IN_MOVED_FROM != 0 {
		w.forget(p)
	}
	if mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && !w.skip(p) && name != ".git" {
		if err := w.addTree(p); err != nil {
			w.broke(err) // e.g. the watch limit: changes there would go unseen
		}
	}
}

// overflowed handles a lost event: anything may have changed, and a
// directory created meanwhile may be unwatched, so watch the tree again
// (adding a watch to a watched directory is harmless).
func (w *watcher) overflowed() {
	w.all, w.lost = true, true
	if err := w.addTree(""); err != nil {
		w.broke(err)
	}
}

// broke notes that a directory could not be watched: from now on every
// recording scans the whole tree.
func (w *watcher) broke(err error) {
	if !w.broken {
		w.broken, w.brokeBy = true, err
	}
}

// brokenBy is why the watcher stopped naming changes, nil while it names
// them.
func (w *watcher) brokenBy() error { return w.brokeBy }
