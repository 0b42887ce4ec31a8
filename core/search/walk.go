package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/internal/procs"
)

// fileBatch is how many files of one directory make one unit of work, so a
// directory of thousands of files is shared between workers.
const fileBatch = 64

// Options say what to walk. The zero value of every optional field is
// documented on it.
type Options struct {
	// Policy decides what may be read. Every entry's path is checked before
	// the entry is opened or descended into. Required.
	Policy *scope.Policy
	// Root is the directory (or single file) to walk: absolute, clean and
	// symlink-resolved, as scope.Policy.Resolve returns it. A single file is
	// visited as it is, without .gitignore rules.
	Root string
	// Workers is how many goroutines read directories and files at once.
	// Zero means defaultWorkers.
	Workers int
	// KeepFile, if set, selects files by their slash-separated path relative
	// to Root and their base name. Files it rejects are left out silently:
	// they are not what was asked for, so they are not counted as skipped.
	KeepFile func(rel, name string) bool
	// KeepName, if set, selects files by their base name alone, before
	// KeepFile and before their paths are built; files it rejects are left
	// out silently, as with KeepFile.
	KeepName func(name string) bool
	// KeepDir, if set, prunes directories (by slash-separated path relative
	// to Root) that cannot hold a wanted file, silently.
	KeepDir func(rel string) bool
}

// entry is a file a walk offers to its visitor.
type entry struct {
	Path string // absolute path where it was found (a symlink's own path)

	name   string
	dir    *dirNode  // the directory holding it; nil for a symlink or a single-file root
	target string    // with dir nil: the resolved path to open
	info   *fileInfo // with dir nil: what the target is
}

// open opens the entry for reading.
func (e *entry) open(p *scope.Policy) (*file, error) {
	if e.dir == nil {
		return openPath(p, e.target)
	}
	return e.dir.h.openFile(e.name)
}

// stat describes the entry without opening it.
func (e *entry) stat() (fileInfo, error) {
	if e.info != nil {
		return *e.info, nil
	}
	return e.dir.h.lstat(e.name)
}

// dirNode is a directory of the walk. It is opened by the worker that
// reads it and stays open while its subdirectories and file batches still
// need it: refs counts those users.
type dirNode struct {
	parent *dirNode // until opened
	h      *dirHandle
	name   string
	abs    string
	rel    string
	ign    *ignoreChain
	refs   atomic.Int32
}

// release drops one user and closes the directory after the last.
func (n *dirNode) release() {
	if n.refs.Add(-1) == 0 {
		n.h.close()
	}
}

// job is one unit of work: read a directory, or visit a batch of its files.
type job struct {
	dir   *dirNode
	files []dirent // nil: read dir
}

// walker is one walk in progress.
type walker struct {
	ctx   context.Context
	o     Options
	visit func(*entry) Reason
	q     queue
}

// walk calls visit for every file under o.Root that is not left out, from
// o.Workers goroutines at once, and returns what was left out. visit says
// whether it searched the file or why not. Symlinks to files are followed
// when their target is allowed; symlinks to directories never are. The
// walk stops early, returning ctx's error, when ctx is done.
func walk(ctx context.Context, o Options, visit func(*entry) Reason) (Skipped, error) {
	fi, err := os.Stat(o.Root)
	if err != nil {
		return Skipped{}, err
	}
	if !fi.IsDir() {
		return walkFile(o, fi, visit), nil
	}
	defer procs.Widen()() // the workers compute in parallel
	h, err := openRootDir(o.Policy, o.Root)
	if err != nil {
		return Skipped{}, err
	}
	root := &dirNode{h: h, abs: o.Root, ign: ancestorIgnores(o.Policy, o.Root)}
	root.refs.Store(1)
	w := &walker{ctx: ctx, o: o, visit: visit}
	w.q.cond.L = &w.q.mu
	w.q.push(job{dir: root})
	skipped := make([]Skipped, workers(o.Workers))
	var wg sync.WaitGroup
	for i := range skipped {
		wg.Go(func() { w.work(&skipped[i]) })
	}
	wg.Wait()
	var total Skipped
	for _, s := range skipped {
		total.merge(s)
	}
	return total, ctx.Err()
}

// defaultWorkers is the least number of workers of a walk. More
// goroutines than threads pay off when the tree is not in the page cache:
// a read then waits for the disk, and with many reads in flight the disk
// serves them together (on the Linux sources with a cold cache, 16 workers
// on 2 cores walk about a third faster than 2). With a warm cache the
// extra goroutines only take turns on the GOMAXPROCS threads.
const defaultWorkers = 16

// workers returns the number of workers to use.
func workers(n int) int {
	if n > 0 {
		return n
	}
	return max(defaultWorkers, 2*runtime.GOMAXPROCS(0))
}

// walkFile visits a single file given as the root.
func walkFile(o Options, fi os.FileInfo, visit func(*entry) Reason) Skipped {
	var sk Skipped
	info := statInfo(fi)
	if info.kind != kindFile {
		sk.add(SpecialFile)
		return sk
	}
	name := filepath.Base(o.Root)
	sk.add(visit(&entry{Path: o.Root, name: name, target: o.Root, info: &info}))
	return sk
}

// work runs jobs until none are left.
func (w *walker) work(sk *Skipped) {
	for {
		j, ok := w.q.pop()
		if !ok {
			return
		}
		switch {
		case w.ctx.Err() != nil:
			j.abandon()
		case j.files != nil:
			w.visitFiles(j, sk)
		default:
			w.readDir(j.dir, sk)
		}
		w.q.done()
	}
}

// abandon releases what a job holds without doing it.
func (j job) abandon() {
	if j.files == nil && j.dir.h == nil {
		j.dir.parent.release()
		return
	}
	j.dir.release()
}

// readDir opens (unless it is the root) and lists a directory, queues its
// subdirectories and its files in batches.
func (w *walker) readDir(n *dirNode, sk *Skipped) {
	if n.h == nil {
		h, err := n.parent.h.openDir(n.name)
		n.parent.release()
		n.parent = nil
		if err != nil {
			sk.add(Unreadable)
			return
		}
		n.h = h
		n.refs.Store(1)
	}
	defer n.release()
	ents, err := n.h.readDir()
	if err != nil {
		sk.add(Unreadable)
		return
	}
	n.ign = w.loadIgnores(n, ents)
	var files []dirent
	for _, e := range ents {
		if f, ok := w.sortEntry(n, e, sk); ok {
			files = append(files, f)
		}
	}
	for len(files) > 0 {
		k := min(len(files), fileBatch)
		n.refs.Add(1)
		w.q.push(job{dir: n, files: files[:k:k]})
		files = files[k:]
	}
}

// sortEntry applies the skip rules to one entry of n. It queues
// directories and returns the files to visit.
func (w *walker) sortEntry(n *dirNode, e dirent, sk *Skipped) (dirent, bool) {
	if e.kind != kindDir && e.kind != kindUnknown && w.o.KeepName != nil && !w.o.KeepName(e.name) {
		return e, false
	}
	abs, rel := joinPath(n.abs, e.name), joinRel(n.rel, e.name)
	if e.kind == kindUnknown {
		fi, err := n.h.lstat(e.name)
		if err != nil {
			sk.add(Unreadable)
			return e, false
		}
		e.kind = fi.kind
	}
	if e.kind == kindDir {
		w.enterDir(n, e.name, abs, rel, sk)
		return e, false
	}
	switch {
	case w.o.KeepName != nil && !w.o.KeepName(e.name):
	case w.o.KeepFile != nil && !w.o.KeepFile(rel, e.name):
	case n.ign.ignored(abs, e.name, false):
		sk.add(Ignored)
	case w.o.Policy.Check(abs) != nil:
		sk.add(Denied)
	case e.kind == kindOther:
		sk.add(SpecialFile)
	default:
		return e, true
	}
	return e, false
}

// enterDir queues the subdirectory name of n unless a skip rule applies.
func (w *walker) enterDir(n *dirNode, name, abs, rel string, sk *Skipped) {
	switch {
	case w.o.KeepDir != nil && !w.o.KeepDir(rel):
	case name == ".git":
		sk.add(GitDir)
	case n.ign.ignored(abs, name, true):
		sk.add(Ignored)
	case w.o.Policy.Check(abs) != nil:
		sk.add(Denied)
	default:
		n.refs.Add(1)
		w.q.push(job{dir: &dirNode{parent: n, name: name, abs: abs, rel: rel, ign: n.ign}})
	}
}

// visitFiles offers a batch of files to the visitor.
func (w *walker) visitFiles(j job, sk *Skipped) {
	defer j.dir.release()
	for _, d := range j.files {
		if w.ctx.Err() != nil {
			return
		}
		e := entry{Path: joinPath(j.dir.abs, d.name), name: d.name, dir: j.dir}
		if d.kind == kindLink {
			if r := w.resolveLink(&e); r != Searched {
				sk.add(r)
				continue
			}
		}
		sk.add(w.visit(&e))
	}
}

// resolveLink decides what a symlink leads to. A link to an allowed
// regular file is visited as that file (opened through the policy, under
// the link's own path); links to directories are not followed.
func (w *walker) resolveLink(e *entry) Reason {
	target, err := filepath.EvalSymlinks(e.Path)
	if err != nil {
		return Unreadable
	}
	if w.o.Policy.Check(target) != nil {
		return Denied
	}
	fi, err := os.Stat(target)
	switch {
	case err != nil:
		return Unreadable
	case fi.IsDir():
		return SymlinkDir
	case !fi.Mode().IsRegular():
		return SpecialFile
	}
	info := statInfo(fi)
	e.dir, e.target, e.info = nil, target, &info
	return Searched
}

// joinPath appends a name to an absolute directory path.
func joinPath(dir, name string) string {
	if os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// joinRel appends a name to a slash-separated relative path.
func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// queue is the walk's shared stack of jobs. Last in, first out keeps the
// walk depth-first, so few directories are open at once.
type queue struct {
	mu   sync.Mutex
	cond sync.Cond
	jobs []job
	busy int // jobs popped and not yet done
}

// push adds a job and wakes one waiting worker.
func (q *queue) push(j job) {
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.mu.Unlock()
	q.cond.Signal()
}

// pop takes a job, waiting while other workers may still add some. It
// returns false when the walk is over.
func (q *queue) pop() (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 {
		if q.busy == 0 {
			return job{}, false
		}
		q.cond.Wait()
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs[len(q.jobs)-1] = job{}
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.busy++
	return j, true
}

// done marks a popped job finished; the last one wakes every worker so
// they can see the walk is over.
func (q *queue) done() {
	q.mu.Lock()
	q.busy--
	over := q.busy == 0 && len(q.jobs) == 0
	q.mu.Unlock()
	if over {
		q.cond.Broadcast()
	}
}
