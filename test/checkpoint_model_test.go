package test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The model-based checkpoint test: seeded random interleavings of the
// agent's calls (create_file, str_replace, bash), changes made outside
// Boris (write, delete, chmod) and undos (latest, earlier, by path,
// forced, of an undo), checked after every step against a model of what
// each checkpoint holds. BORIS_MODEL_SEED and BORIS_MODEL_STEPS replay or
// lengthen a run; `make soak-checkpoints` runs many.

// modelFile is a file's state in the model: nil means absent.
type modelFile struct {
	data string
	exec bool
}

// modelCheckpoint is what one checkpoint changed: each path's state
// before and after.
type modelCheckpoint struct {
	id            int
	tool          string
	before, after map[string]*modelFile
}

// model is the expected tree and checkpoint history.
type model struct {
	tree    map[string]*modelFile
	pending map[string]*modelFile // outside changes not yet recorded: state before them
	cps     []*modelCheckpoint
	next    int // the next checkpoint's number
}

var modelPaths = []string{"a.txt", "b.txt", "d/c.txt", "d/e.txt"}

func sameFile(a, b *modelFile) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// commit records a checkpoint of tool for the paths whose state differs
// from before, as the core would (nothing when nothing changed).
func (m *model) commit(tool string, before map[string]*modelFile) *modelCheckpoint {
	cp := &modelCheckpoint{tool: tool, before: map[string]*modelFile{}, after: map[string]*modelFile{}}
	for p, was := range before {
		if now := m.tree[p]; !sameFile(was, now) {
			cp.before[p], cp.after[p] = was, now
		}
	}
	if len(cp.before) == 0 {
		return nil
	}
	cp.id = m.next
	m.next++
	m.cps = append(m.cps, cp)
	return cp
}

// flush records pending outside changes, as the core does before a call
// that changes files.
func (m *model) flush() {
	if len(m.pending) > 0 {
		m.commit("outside", m.pending)
		m.pending = map[string]*modelFile{}
	}
}

// snapshotOf saves the state of paths before a change.
func (m *model) snapshotOf(paths ...string) map[string]*modelFile {
	out := map[string]*modelFile{}
	for _, p := range paths {
		out[p] = m.tree[p]
	}
	return out
}

// undoPlan is what undoing cp (restricted to path when set) would do: the
// paths it restores, and whether a later outside checkpoint conflicts.
func (m *model) undoPlan(cp *modelCheckpoint, path string) (paths []string, conflict bool) {
	for p := range cp.before {
		if path == "" || p == path {
			paths = append(paths, p)
		}
	}
	for _, later := range m.cps {
		if later.id <= cp.id || later.tool != "outside" {
			continue
		}
		for _, p := range paths {
			if _, ok := later.before[p]; ok {
				conflict = true
			}
		}
	}
	return paths, conflict
}

// modelRun drives one core with a seeded sequence of steps.
type modelRun struct {
	t    *testing.T
	c    *core
	tree string
	m    *model
	rng  *rand.Rand
	log  []string
	n    int // content counter: every write is unique

	undos, conflicts int // done and refused, for the log
}

func (r *modelRun) fail(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s\nsteps:\n  %s\nhistory:\n%s", fmt.Sprintf(format, args...), strings.Join(r.log, "\n  "),
		text(r.c.call("history", map[string]any{"limit": 400})))
}

// check compares the real tree with the model, file by file, and the
// latest checkpoint's id with the model's.
func (r *modelRun) check() {
	r.t.Helper()
	for _, p := range modelPaths {
		want := r.m.tree[p]
		fi, err := os.Lstat(filepath.Join(r.tree, p))
		if want == nil {
			if err == nil {
				r.fail("%s: exists, want it absent", p)
			}
			continue
		}
		if err != nil {
			r.fail("%s: %v, want %q", p, err, want.data)
		}
		data, _ := os.ReadFile(filepath.Join(r.tree, p))
		if string(data) != want.data || (fi.Mode()&0o100 != 0) != want.exec {
			r.fail("%s: got %q exec %v, want %q exec %v", p, data, fi.Mode()&0o100 != 0, want.data, want.exec)
		}
	}
}

// checkLatest checks that the latest checkpoint is the model's.
func (r *modelRun) checkLatest() {
	r.t.Helper()
	want := "cp_" + strconv.Itoa(r.m.next-1)
	if got := latestID(r.t, r.c); got != want {
		r.fail("latest checkpoint: got %s, want %s", got, want)
	}
}

func (r *modelRun) content() string {
	r.n++
	return fmt.Sprintf("v%d\n", r.n)
}

// agent makes one of the agent's calls.
func (r *modelRun) agent() {
	p := modelPaths[r.rng.IntN(len(modelPaths))]
	before := r.m.snapshotOf(modelPaths...)
	switch cur := r.m.tree[p]; {
	case r.rng.IntN(3) == 0 && cur != nil:
		next := r.content()
		r.log = append(r.log, "str_replace "+p)
		r.c.ok("str_replace", map[string]any{"path": p, "old_str": strings.TrimSpace(cur.data), "new_str": strings.TrimSpace(next)})
		r.m.flush()
		r.m.tree[p] = &modelFile{data: next, exec: cur.exec}
		r.m.commit("str_replace", before)
	case r.rng.IntN(2) == 0:
		data := r.content()
		r.log = append(r.log, "create_file "+p)
		r.c.ok("create_file", map[string]any{"path": p, "content": data})
		r.m.flush()
		exec := cur != nil && cur.exec // an overwritten file keeps its mode
		r.m.tree[p] = &modelFile{data: data, exec: exec}
		r.m.commit("create_file", before)
	default:
		cmd, apply := r.bashChange(p)
		r.log = append(r.log, "bash "+cmd)
		r.c.ok("bash", map[string]any{"command": cmd})
		r.m.flush()
		apply()
		r.m.commit("bash", before)
	}
}

// bashChange picks a shell command changing p and what it does to the model.
func (r *modelRun) bashChange(p string) (string, func()) {
	cur := r.m.tree[p]
	switch {
	case cur != nil && r.rng.IntN(3) == 0:
		return "rm " + p, func() { delete(r.m.tree, p) }
	case cur != nil && r.rng.IntN(2) == 0:
		if cur.exec {
			return "chmod -x " + p, func() { r.m.tree[p] = &modelFile{data: cur.data} }
		}
		return "chmod +x " + p, func() { r.m.tree[p] = &modelFile{data: cur.data, exec: true} }
	}
	data := r.content()
	exec := cur != nil && cur.exec
	return fmt.Sprintf("mkdir -p %s && printf '%%s\\n' %s > %s", filepath.Dir(p), strings.TrimSpace(data), p),
		func() { r.m.tree[p] = &modelFile{data: data, exec: exec} }
}

// outside changes a file on disk, as an editor or another process would.
func (r *modelRun) outside() {
	p := modelPaths[r.rng.IntN(len(modelPaths))]
	abs := filepath.Join(r.tree, p)
	if _, ok := r.m.pending[p]; !ok {
		r.m.pending[p] = r.m.tree[p]
	}
	cur := r.m.tree[p]
	switch {
	case cur != nil && r.rng.IntN(3) == 0:
		r.log = append(r.log, "outside rm "+p)
		if err := os.Remove(abs); err != nil {
			r.t.Fatal(err)
		}
		delete(r.m.tree, p)
	case cur != nil && r.rng.IntN(2) == 0:
		r.log = append(r.log, "outside chmod "+p)
		mode := os.FileMode(0o755)
		if cur.exec {
			mode = 0o644
		}
		if err := os.Chmod(abs, mode); err != nil {
			r.t.Fatal(err)
		}
		r.m.tree[p] = &modelFile{data: cur.data, exec: !cur.exec}
	default:
		data := r.content()
		r.log = append(r.log, "outside write "+p)
		writeFile(r.t, abs, data) // keeps an existing file's mode
		r.m.tree[p] = &modelFile{data: data, exec: cur != nil && cur.exec}
	}
}

// undo undoes a random agent checkpoint (or the latest), maybe by path,
// maybe forced, and checks the refusal or the result against the model.
func (r *modelRun) undo() {
	var agents []*modelCheckpoint
	for _, cp := range r.m.cps {
		if cp.tool != "outside" && cp.id > 1 {
			agents = append(agents, cp)
		}
	}
	if len(agents) == 0 {
		return
	}
	r.m.flush() // undo records pending outside changes first
	cp := agents[len(agents)-1]
	if r.rng.IntN(2) == 0 {
		cp = agents[r.rng.IntN(len(agents))]
	}
	args := map[string]any{"checkpoint": "cp_" + strconv.Itoa(cp.id)}
	path := ""
	if r.rng.IntN(3) == 0 {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range cp.before {
				if !yield(k) {
					return
				}
			}
		})
		path = keys[r.rng.IntN(len(keys))]
		args["path"] = path
	}
	force := r.rng.IntN(4) == 0
	if force {
		args["force"] = true
	}
	paths, conflict := r.m.undoPlan(cp, path)
	r.log = append(r.log, fmt.Sprintf("undo %v", args))
	res := r.c.call("undo", args)
	if conflict && !force {
		if !res.IsError || !strings.HasPrefix(text(res), "[CONFLICT]") {
			r.fail("undo %v: got %q, want CONFLICT (a later outside change touched its files)", args, text(res))
		}
		r.conflicts++
		return
	}
	r.undos++
	if res.IsError {
		r.fail("undo %v: got error %q, want success", args, text(res))
	}
	r.m.undone(cp, paths)
}

// undone applies a successful undo of cp at paths: each back to its state
// before cp, recorded as a checkpoint of its own.
func (m *model) undone(cp *modelCheckpoint, paths []string) {
	before := m.snapshotOf(modelPaths...)
	for _, p := range paths {
		if was := cp.before[p]; was == nil {
			delete(m.tree, p)
		} else {
			m.tree[p] = was
		}
	}
	m.commit("undo", before)
}

// TestCheckpointModel runs the model for BORIS_MODEL_STEPS steps (200)
// from BORIS_MODEL_SEED (a fixed one), checking the tree after every step
// and the latest checkpoint's id after every changing call, then undoes
// every remaining agent checkpoint newest first and checks each refusal
// and result the same way.
func TestCheckpointModel(t *testing.T) {
	seed, steps := uint64(20261126), 200
	if v, err := strconv.ParseUint(os.Getenv("BORIS_MODEL_SEED"), 10, 64); err == nil {
		seed = v
	}
	if v, err := strconv.Atoi(os.Getenv("BORIS_MODEL_STEPS")); err == nil && v > 0 {
		steps = v
	}
	t.Logf("seed %d, %d steps (BORIS_MODEL_SEED, BORIS_MODEL_STEPS replay it)", seed, steps)
	tree := realTempDir(t)
	r := &modelRun{t: t, tree: tree, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		m: &model{tree: map[string]*modelFile{}, pending: map[string]*modelFile{}, next: 2}}
	for _, p := range modelPaths[:2] {
		data := r.content()
		writeFile(t, filepath.Join(tree, p), data)
		r.m.tree[p] = &modelFile{data: data}
	}
	// Enough checkpoints kept that none is pruned during the run.
	c, _ := startCheckpointCore(t, tree, "--checkpoint-keep", strconv.Itoa(4*steps+50))
	r.c = c
	c.ok("history", map[string]any{}) // the first call: the start checkpoint, cp_1
	r.m.cps = append(r.m.cps, &modelCheckpoint{id: 1, tool: "start"})
	for range steps {
		switch k := r.rng.IntN(10); {
		case k < 5:
			r.agent()
			r.checkLatest()
		case k < 8:
			r.outside()
		default:
			r.undo()
			r.checkLatest()
		}
		r.check()
	}
	t.Logf("%d checkpoints, %d undos, %d refused as conflicts", r.m.next-1, r.undos, r.conflicts)
	// Undo every agent checkpoint newest first, forcing nothing: each is
	// refused exactly where a later outside change touched its files.
	r.m.flush()
	for i := len(r.m.cps) - 1; i >= 0; i-- {
		cp := r.m.cps[i]
		if cp.tool == "outside" || cp.id <= 1 {
			continue
		}
		paths, conflict := r.m.undoPlan(cp, "")
		args := map[string]any{"checkpoint": "cp_" + strconv.Itoa(cp.id)}
		r.log = append(r.log, fmt.Sprintf("final undo %v", args))
		res := r.c.call("undo", args)
		switch {
		case conflict && (!res.IsError || !strings.HasPrefix(text(res), "[CONFLICT]")):
			r.fail("final undo %v: got %q, want CONFLICT", args, text(res))
		case !conflict && res.IsError:
			r.fail("final undo %v: got error %q, want success", args, text(res))
		case !conflict:
			r.m.undone(cp, paths)
		}
		r.check()
	}
}
