package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mjkoo/boris/core/scope"
)

// startGrace is how long a command waits for a starting checkpoint under
// way before it runs beside it (and what it changes is named in a gap).
const startGrace = 50 * time.Millisecond

// The starting checkpoint, the tree as the session found it, reads every
// file of the tree: seconds on a large one. It is taken in the background
// from initialize, and no call waits for it:
//
//   - calls that only read (view, grep, ...) never touch the recorder;
//   - a file tool that writes while it is under way keeps the state of
//     each path it is about to write (BeforeWrite), and the start records
//     that state for the path, whatever it read there; the tool's own
//     change is captured as it ends and recorded right after the start,
//     so it can be undone like any other;
//   - a command (bash, an extension tool) may change any path, at any
//     moment of the start's scan, so the start cannot know whether it read
//     a path before or after the command changed it: once the start is
//     recorded, every path changed while it was taken is named in a gap
//     (the next result and history), unless a file tool kept its earlier
//     state first.
//
// Calls that read the history (history, diff, undo) wait for the start.

// startState is what writers left for the start while it was taken.
type startState struct {
	mu       sync.Mutex
	sealed   bool                  // the start has taken what it needs: later writers wait for it
	pre      map[string]preCapture // the state each path had before the first write to it
	commands []string              // commands that ran while the start was taken
	// firstCommand is when the first of them started: what commands
	// changed where no watch was yet is found by change times from then.
	firstCommand time.Time
}

// preCapture is one path's state before a file tool wrote it.
type preCapture struct {
	c            captured
	known        bool // false: it could not be read (the start's reading stands)
	afterCommand bool // a command had run before it was read: it may hold that command's change
}

// starting reports whether the starting checkpoint is still being taken.
func (r *Recorder) starting() bool {
	select {
	case <-r.ready:
		return false
	default:
		return true
	}
}

// BeforeWrite runs before a file tool writes paths: while the starting
// checkpoint is being taken, it keeps each path's state for the start
// (so the write stays undoable) and returns at once; otherwise it is
// BeforeChange.
func (r *Recorder) BeforeWrite(ctx context.Context, paths ...string) {
	if r == nil {
		return
	}
	r.Start()
	if r.keepForStart(paths) {
		// What changed outside Boris meanwhile is recorded before this
		// call's change, as BeforeChange does, once the start is.
		r.Record(OutsideTool, r.outsideSummary())
		return
	}
	r.BeforeChange(ctx)
}

// keptPaths are the paths file tools wrote while the start was taken.
func (r *Recorder) keptPaths() map[string]bool {
	r.startup.mu.Lock()
	defer r.startup.mu.Unlock()
	kept := make(map[string]bool, len(r.startup.pre))
	for rel := range r.startup.pre {
		kept[rel] = true
	}
	return kept
}

// keepForStart keeps the state of paths for a start under way; false when
// there is none (it is recorded, sealed, or checkpoints are off).
func (r *Recorder) keepForStart(paths []string) bool {
	if !r.starting() || r.Store() == nil {
		return false
	}
	r.startup.mu.Lock()
	defer r.startup.mu.Unlock()
	if r.startup.sealed {
		return false
	}
	if r.startup.pre == nil {
		r.startup.pre = map[string]preCapture{}
	}
	for _, p := range paths {
		rel := r.store.rel(p)
		if _, kept := r.startup.pre[rel]; kept || rel == "." || strings.HasPrefix(rel, "../") || rel == ".." {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(r.tree, filepath.FromSlash(rel))); err == nil && fi.IsDir() {
			continue // a directory: git records its files, which a write to it names
		}
		if !r.store.capturable(rel) {
			// Inside a nested repository (recorded as a reference) or
			// denied by the policy: no checkpoint holds it as a file,
			// so there is no state before to keep, nor to miss.
			continue
		}
		pc := preCapture{afterCommand: len(r.startup.commands) > 0}
		pc.c, _, pc.known = r.store.captureOne(rel)
		r.startup.pre[rel] = pc
	}
	return true
}

// BeforeCommand runs before a command that may change any file (bash,
// an extension tool): while the starting checkpoint is being taken, it
// notes the command and returns at once (once the start is recorded, a
// gap names every path changed meanwhile); otherwise it is BeforeChange.
func (r *Recorder) BeforeCommand(ctx context.Context, summary string) {
	if r == nil {
		return
	}
	r.Start()
	if r.starting() && r.Store() != nil {
		// On a small tree the start is done in a few milliseconds: a short
		// wait for it keeps the command's change undoable there, at a cost
		// bounded on a large one.
		grace := time.NewTimer(startGrace)
		select {
		case <-r.ready:
		case <-grace.C:
		case <-ctx.Done():
		}
		grace.Stop()
	}
	if r.starting() && r.Store() != nil && r.startup.noteCommand(summary) {
		return
	}
	r.BeforeChange(ctx)
}

// noteCommand notes a command that runs while the start is taken; false
// when the start is sealed (the command waits for it instead). It does
// not wait for the watcher: where no watch is yet when the command
// starts, the watcher finds what it changed by change times (since).
func (st *startState) noteCommand(summary string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sealed {
		return false
	}
	if st.firstCommand.IsZero() {
		st.firstCommand = time.Now()
	}
	st.commands = append(st.commands, oneLine(summary))
	return true
}

// commandsSince is when the first command of the start began, for the
// watcher; false when none has, or the start is sealed.
func (r *Recorder) commandsSince() (time.Time, bool) {
	r.startup.mu.Lock()
	defer r.startup.mu.Unlock()
	return r.startup.firstCommand, !r.startup.sealed && !r.startup.firstCommand.IsZero()
}

// seal is called by the start's recording once it has read the tree, with
// the paths the watcher saw change while it did (all: it cannot say): it
// returns the states the writers kept, for the start to record, and notes
// a gap for every path whose state before a command it cannot know.
func (r *Recorder) seal(changed []string, all bool) map[string]captured {
	r.startup.mu.Lock()
	r.startup.sealed = true
	pre, cmds := r.startup.pre, r.startup.commands
	r.startup.mu.Unlock()
	entries := map[string]captured{}
	var unsure []string
	for rel, p := range pre {
		if p.known {
			entries[rel] = p.c
		}
		if (!p.known || (p.afterCommand && !all)) && !isDir(r.tree, rel) {
			unsure = append(unsure, rel) // (a directory: git records its files, named on their own)
		}
	}
	if len(cmds) == 0 {
		r.sayUnsure("start", StartSummary, unsure, pre)
		return entries
	}
	summary := strings.Join(cmds, "; ")
	if all {
		r.gaps.add("bash", summary, fmt.Errorf("it ran while the tree's starting checkpoint was being taken and the watcher could not name what changed meanwhile: "+
			"any path it changed may hold its change in the starting state"))
		return entries
	}
	for _, rel := range filesOf(r.tree, changed) {
		if p, ok := pre[rel]; ok && p.known && !p.afterCommand || slices.Contains(unsure, rel) {
			continue
		}
		unsure = append(unsure, rel)
	}
	r.sayUnsure("bash", summary, unsure, pre)
	return entries
}

// isDir reports whether rel is a directory of tree now.
func isDir(tree, rel string) bool {
	fi, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(rel)))
	return err == nil && fi.IsDir()
}

// filesOf lists the paths of tree the watcher named with each directory among
// them replaced by the files under it: git records files, not
// directories, so a directory made (or moved in) while the start was
// taken matters only for what it holds, and an empty one not at all.
func filesOf(tree string, changed []string) []string {
	var out []string
	for _, rel := range changed {
		if strings.HasSuffix(rel, "/") {
			// A directory an entry may have left while no watch was on
			// it: what left is named by nothing on disk.
			out = append(out, rel)
			continue
		}
		root := filepath.Join(tree, filepath.FromSlash(rel))
		if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
			out = append(out, rel)
			continue
		}
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && d.Name() == ".git":
				return filepath.SkipDir
			case d.IsDir():
				return nil
			}
			if sub, err := filepath.Rel(tree, p); err == nil {
				out = append(out, filepath.ToSlash(sub))
			}
			return nil
		})
	}
	return out
}

// recordable is paths less those the shadow never records (the board's
// files in the tree, the state directory, .gitignore's): no gap names
// them, since no checkpoint would have held them. Should git not answer,
// every path is kept: a gap too many is said rather than one too few.
func (r *Recorder) recordable(paths []string) []string {
	if len(paths) == 0 || r.store == nil {
		return paths
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ignored, err := r.store.ignored(ctx, paths)
	if err != nil {
		return paths
	}
	return slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return ignored[p] || ignored[strings.TrimSuffix(p, "/")] })
}

// isWriteTemp reports whether rel is a file tool's temporary file (see
// scope.TempTarget) that holds no state of the tree's: one that is gone,
// or one beside a file a file tool wrote while the start was taken (that
// write's own, still under way; the write's file is captured). Either
// existed only while a write of another call ran.
func (r *Recorder) isWriteTemp(rel string, kept map[string]preCapture) bool {
	target, ok := scope.TempTarget(path.Base(rel))
	if !ok {
		return false
	}
	if _, ok := kept[path.Join(path.Dir(rel), target)]; ok {
		return true
	}
	_, err := os.Lstat(filepath.Join(r.tree, filepath.FromSlash(rel)))
	return errors.Is(err, fs.ErrNotExist)
}

// sayUnsure notes a gap naming the paths whose earlier state the start
// may not hold; kept are the paths file tools wrote meanwhile.
func (r *Recorder) sayUnsure(tool, summary string, unsure []string, kept map[string]preCapture) {
	unsure = r.recordable(slices.DeleteFunc(unsure, func(rel string) bool { return r.isWriteTemp(rel, kept) }))
	if len(unsure) == 0 {
		return
	}
	slices.Sort(unsure)
	more := ""
	if len(unsure) > 20 {
		more = fmt.Sprintf(" and %d more", len(unsure)-20)
		unsure = unsure[:20]
	}
	r.gaps.add(tool, summary, fmt.Errorf("changed while the tree's starting checkpoint was being taken, so its state before may not be recorded: %s%s",
		strings.Join(unsure, ", "), more))
}

// SetStartHold sets a function the starting checkpoint runs before it
// reads the tree, and waits for: a test holds the start with it, to show
// that no call waits for the start. Call it before Start.
func (r *Recorder) SetStartHold(hold func(ctx context.Context)) {
	if r != nil {
		r.hold = hold
	}
}

// SetWatchHold sets a function the recorder runs before it starts
// watching the tree, and waits for: a test holds the watcher with it, to
// show that what a command changes before the watches are added is
// still named. Call it before Start.
func (r *Recorder) SetWatchHold(hold func(ctx context.Context)) {
	if r != nil {
		r.holdWatch = hold
	}
}
