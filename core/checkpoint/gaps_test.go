package checkpoint

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestWatchNote: a watcher that could not start is said in a line naming
// the limit it met, so an agent on a tree too large for the watch limit
// learns why recordings are slow.
func TestWatchNote(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{os.NewSyscallError("inotify_add_watch /t/d", syscall.ENOSPC), "fs.inotify.max_user_watches"},
		{os.NewSyscallError("inotify_init1", syscall.EMFILE), "fs.inotify.max_user_instances"},
		{errors.New("changed-path tracking needs Linux's inotify"), "needs Linux's inotify"},
	} {
		got := watchNote(tc.err)
		if !strings.Contains(got, tc.want) || !strings.Contains(got, "scan the whole tree") {
			t.Errorf("watchNote(%v): got %q, want it to name %q and the whole-tree scan", tc.err, got, tc.want)
		}
	}
}

// TestNotesAreSaidOnceAndListed: a note is said in the next result once
// (not as a change not recorded) and history lists it, once however
// often it is noted.
func TestNotesAreSaidOnceAndListed(t *testing.T) {
	var g gaps
	g.note("the watch limit")
	g.note("the watch limit")
	g.add("bash", "make", errors.New("disk full"))
	said := g.take()
	if len(said) != 2 || said[0] != "the watch limit" || !strings.HasPrefix(said[1], "a change was not recorded: ") {
		t.Errorf("take: got %q, want the note once, then the gap", said)
	}
	if again := g.take(); len(again) != 0 {
		t.Errorf("take again: got %q, want nothing", again)
	}
	list := g.list()
	if len(list) != 2 || list[0] != "note the watch limit" || !strings.HasPrefix(list[1], "gap  ") {
		t.Errorf("list: got %q, want the note, then the gap", list)
	}
}
