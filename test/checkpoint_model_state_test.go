package test

import (
	"crypto/sha1"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The model of TestCheckpointModel: what the core is expected to hold, to
// record and to do on undo (docs/reference/core.md#checkpoints), worked out from the calls and the
// changes alone, never read back from the core.

// modelPaths are the files the test plays with; modelDirs the directories
// that hold them.
var (
	modelPaths = []string{"d1/a.txt", "d1/b.txt", "d1/sub/c.txt", "d2/a.txt", "d2/b.txt", "d2/sub/c.txt"}
	modelDirs  = []string{"d1", "d1/sub", "d2", "d2/sub"}
)

// mEntry is what the model expects at a path: a regular file's bytes and
// mode (0o644 or 0o755), or, with link set, a symbolic link's target.
type mEntry struct {
	link bool
	data string
	mode fs.FileMode
}

// gitEntry is the entry as git ls-tree shows it: mode and blob id.
func (e mEntry) gitEntry() string {
	mode := "100644"
	switch {
	case e.link:
		mode = "120000"
	case e.mode&0o100 != 0:
		mode = "100755"
	}
	return fmt.Sprintf("%s blob %x", mode, sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(e.data), e.data))))
}

// render is the entry as snapshot shows it.
func (e mEntry) render() string {
	if e.link {
		return "link " + e.data
	}
	return fmt.Sprintf("%v %q", e.mode, e.data)
}

// mTree maps paths to what they hold; an absent path is not in it.
type mTree map[string]mEntry

// render is the tree as snapshot shows it, directories left out.
func (t mTree) render() map[string]string {
	out := map[string]string{}
	for p, e := range t {
		out[filepath.FromSlash(p)] = e.render()
	}
	return out
}

// mChange is one path a checkpoint changed, nil meaning absent.
type mChange struct{ before, after *mEntry }

// status is the letter history shows for the change.
func (c mChange) status() string {
	switch {
	case c.before == nil:
		return "A"
	case c.after == nil:
		return "D"
	case c.before.link != c.after.link:
		return "T"
	}
	return "M"
}

// mCheckpoint is a checkpoint as the model expects it.
type mCheckpoint struct {
	id    int
	tool  string
	files map[string]mChange
	tree  mTree // the tree as recorded by it
	// mixed: a background task's, which may hold changes made outside
	// Boris while it ran; undo treats it as it treats outside ones.
	mixed   bool
	session int // the session that recorded it: 0 the first, then each restart's; otherSessionID the second
}

// maybeOutside reports whether cp may hold changes made outside Boris.
func (cp *mCheckpoint) maybeOutside() bool { return cp.tool == "outside" || cp.mixed }

// String is the checkpoint as parseHistory reads history's lines.
func (cp *mCheckpoint) String() string {
	var files []string
	for _, p := range cp.pathsAt("") {
		files = append(files, cp.files[p].status()+" "+p)
	}
	return fmt.Sprintf("cp_%d %s: %s", cp.id, cp.tool, strings.Join(files, ", "))
}

// pathsAt lists the paths cp changed at or below at ("": all), sorted.
func (cp *mCheckpoint) pathsAt(at string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(cp.files)) {
		if at == "" || p == at || strings.HasPrefix(p, at+"/") {
			out = append(out, p)
		}
	}
	return out
}

// model is what the test expects of the core.
type model struct {
	disk mTree          // the tree as it is
	rec  mTree          // the tree as of the latest checkpoint
	cps  []*mCheckpoint // every checkpoint, oldest first; cp_N is cps[N-1]
	// session is the core's current session (the one undoing), startSeq
	// the latest checkpoint when it started (checkpoint_model_sessions_test.go).
	session, startSeq int
}

// record is a recording after a call of tool that changed paths (nil:
// anywhere): what differs there from the last recording becomes a
// checkpoint; nil when nothing does.
func (m *model) record(tool string, paths []string) *mCheckpoint {
	if paths == nil {
		paths = modelPaths
	}
	files := map[string]mChange{}
	for _, p := range paths {
		before, wasThere := m.rec[p]
		after, isThere := m.disk[p]
		if wasThere == isThere && before == after {
			continue
		}
		var c mChange
		if wasThere {
			c.before = &before
		}
		if isThere {
			c.after = &after
			m.rec[p] = after
		} else {
			delete(m.rec, p)
		}
		files[p] = c
	}
	if len(files) == 0 {
		return nil
	}
	cp := &mCheckpoint{id: len(m.cps) + 1, tool: tool, files: files, tree: maps.Clone(m.rec), session: m.session}
	m.cps = append(m.cps, cp)
	return cp
}

// call is an agent's call of tool that changes the disk to t and is
// recorded at paths (nil: anywhere). Changes made outside Boris since the
// last recording are recorded first, as their own checkpoint.
func (m *model) call(tool string, t mTree, paths []string) *mCheckpoint {
	m.record("outside", nil)
	m.disk = t
	return m.record(tool, paths)
}

// undo is what undo{checkpoint: id (0: the latest), path: at, force}
// does: the code it fails with ("" when it succeeds), the checkpoint it
// undoes and the undo's own checkpoint (nil when it changed nothing).
func (m *model) undo(id int, at string, force bool) (code string, target, made *mCheckpoint) {
	m.record("outside", nil) // before the undo plans
	if id == 0 {
		id = len(m.cps)
	}
	if id == 1 { // the tree as the session found it: nothing before it
		return "CHECKPOINT_NOT_FOUND", nil, nil
	}
	target = m.cps[id-1]
	paths := target.pathsAt(at)
	if len(paths) == 0 {
		return "INVALID_INPUT", target, nil
	}
	if !force && len(m.outsideAfter(target, paths)) > 0 {
		return "CONFLICT", target, nil
	}
	t := maps.Clone(m.disk)
	for _, p := range paths {
		if b := target.files[p].before; b != nil {
			t[p] = *b
		} else {
			delete(t, p)
		}
	}
	m.disk = t
	return "", target, m.record("undo", paths)
}

// outsideAfter lists the outside or mixed checkpoints after cp, and cp
// itself when it is mixed, that changed any of paths: an undo of cp
// without force refuses to overwrite them.
func (m *model) outsideAfter(cp *mCheckpoint, paths []string) []*mCheckpoint {
	var out []*mCheckpoint
	for _, later := range m.cps[cp.id-1:] {
		if !m.notOurs(later) || (later == cp && !cp.mixed) {
			continue
		}
		for _, p := range paths {
			if _, ok := later.files[p]; ok {
				out = append(out, later)
				break
			}
		}
	}
	return out
}

// outsideMade lists the paths whose state on disk the latest checkpoint
// that changed them recorded as changed outside Boris.
func (m *model) outsideMade() []string {
	var out []string
	for _, p := range modelPaths {
		for _, cp := range slices.Backward(m.cps) {
			if _, ok := cp.files[p]; ok {
				if m.notOurs(cp) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// initialPlusOutside is what must remain once every agent checkpoint is
// undone: the tree as the session found it, and at each path an outside
// (or mixed) checkpoint changed, what the last of them left there.
func (m *model) initialPlusOutside() mTree {
	t := mTree{}
	for p, c := range m.cps[0].files {
		t[p] = *c.after
	}
	for _, cp := range m.cps[1:] {
		if !m.notOurs(cp) {
			continue
		}
		for p, c := range cp.files {
			if c.after != nil {
				t[p] = *c.after
			} else {
				delete(t, p)
			}
		}
	}
	return t
}

// parseHistory turns history's text into lines like mCheckpoint.String's.
func parseHistory(h string) []string {
	var out, files []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1] += strings.Join(files, ", ")
		}
		files = nil
	}
	for _, line := range strings.Split(h, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 4 && strings.HasPrefix(f[0], "cp_"): // id, date, time, "tool:"
			flush()
			out = append(out, f[0]+" "+f[3]+" ")
		case len(f) == 2:
			files = append(files, f[0]+" "+f[1])
		}
	}
	flush()
	return out
}

// envUint reads a number from the environment, def when unset.
func envUint(t *testing.T, key string, def uint64) uint64 {
	t.Helper()
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: want a number", key, v)
	}
	return n
}

func cpName(cp *mCheckpoint) string {
	if cp == nil {
		return "no checkpoint"
	}
	return fmt.Sprintf("cp_%d", cp.id)
}

func orStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
