package test

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCheckpointModel is a model-based test of checkpoints (docs/reference/core.md#checkpoints). It
// drives one core through a random interleaving, over six files in two
// directories (so that changes collide), of the agent's calls
// (create_file, str_replace, bash appending, overwriting, removing,
// moving, chmodding and linking, background tasks), changes the test
// makes on disk itself, as an editor would (outside Boris: create, edit,
// delete, rename, chmod), and undos of every kind: of the latest
// checkpoint, of an earlier one, with a path, of the previous undo,
// forced; restarts of the core's session with the tree changed while none
// runs, and a second session on the same tree, open alongside, editing
// files (checkpoint_model_sessions_test.go). The model
// (checkpoint_model_state_test.go) says what each
// checkpoint holds, which undos must refuse with CONFLICT and what the
// tree must hold. After every step the tree must equal the model, byte
// for byte and mode for mode; history must list the model's checkpoints;
// an undo without force must leave every outside change in place. At the
// end, undoing every agent checkpoint newest first, forcing nothing, must
// leave the initial tree plus every change made outside Boris (unwind).
//
// BORIS_MODEL_SEED picks the interleaving (default 1), BORIS_MODEL_STEPS
// its length (default 100). A failure prints both, the steps, the history
// and the paths that differ. make soak-checkpoints runs longer ones.
func TestCheckpointModel(t *testing.T) {
	seed := envUint(t, "BORIS_MODEL_SEED", 1)
	steps := int(envUint(t, "BORIS_MODEL_STEPS", defaultModelSteps))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay with BORIS_MODEL_SEED=%d BORIS_MODEL_STEPS=%d", seed, steps)
		}
	})
	// New files get mode 0644, from create_file and the shell alike,
	// whatever the machine's umask. The core inherits it; no other test
	// runs meanwhile (this one is not parallel).
	umask := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(umask) })
	r := newModelRun(t, seed, steps)
	for r.step = 1; r.step <= steps; r.step++ {
		r.randomStep()
	}
	r.checkKinds()
	r.unwind()
}

// defaultModelSteps is the length make test runs: long enough for every
// kind of step with seed 1 (checkKinds), short enough for make test;
// make soak-checkpoints runs longer ones on more seeds.
const defaultModelSteps = 100

// modelRun is one run: the core, its tree, the model and the random source.
type modelRun struct {
	t          *testing.T
	c          *core
	c2         *core // a second session on the tree, once otherSession has started it
	dir        string
	seed       uint64
	steps      int
	step       int
	rng        *rand.Rand
	m          *model
	log        []string          // the steps so far, one line each
	tokens     int               // tokens handed out
	lastSnap   map[string]string // the tree after the last step
	lastUndoID int               // the latest checkpoint an undo made, 0 for none
	state      string            // the core's state directory, where the shadow repository is
	verified   int               // checkpoints whose recorded trees were checked
	ran        map[string]int    // steps run, by kind (stepKinds)
}

// newModelRun writes a random initial tree and starts a core on it, and
// waits for the core to record it, so that no change of the test's lands
// in that first checkpoint.
func newModelRun(t *testing.T, seed uint64, steps int) *modelRun {
	r := &modelRun{t: t, dir: realTempDir(t), seed: seed, steps: steps, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), ran: map[string]int{}}
	start := mTree{modelPaths[0]: {data: r.content(true), mode: r.pickMode()}}
	for _, p := range modelPaths[1:] {
		if r.rng.IntN(3) > 0 {
			start[p] = mEntry{data: r.content(true), mode: r.pickMode()}
		}
	}
	for p, e := range start {
		r.writeEntry(p, e)
	}
	r.m = &model{disk: maps.Clone(start), rec: mTree{}}
	r.m.record("start", nil)
	// No pruning: every checkpoint is kept, so that the end can undo them all.
	r.c, r.state = startCheckpointCore(t, r.dir, "--checkpoint-keep", "1000000")
	r.checkHistory()
	r.checkTree()
	return r
}

// randomStep runs one step: an agent's call, changes outside Boris or an undo.
func (r *modelRun) randomStep() {
	n := r.rng.IntN(100)
	for _, k := range stepKinds {
		if n < k.below {
			r.ran[k.name]++
			k.run(r)
			break
		}
	}
	r.checkTree()
}

// stepKinds are the kinds of step, each drawn when a number below 100 is
// under its bound and the bounds before it.
var stepKinds = []struct {
	name  string
	below int
	run   func(*modelRun)
}{
	{"create_file", 12, (*modelRun).createFile},
	{"str_replace", 22, (*modelRun).strReplace},
	{"bash", 40, (*modelRun).bash},
	{"background task", 45, (*modelRun).background},
	{"outside change", 68, (*modelRun).outside},
	{"restart", 70, (*modelRun).restart},
	{"second session", 73, (*modelRun).otherSession},
	{"undo", 100, (*modelRun).randomUndo},
}

// checkKinds fails a run of make test's length or more in which a kind
// of step never ran: its seed and length no longer test that kind.
func (r *modelRun) checkKinds() {
	if r.steps < defaultModelSteps {
		return
	}
	for _, k := range stepKinds {
		if r.ran[k.name] == 0 {
			r.t.Errorf("seed %d ran no %s step in %d steps: choose a seed or a length that does", r.seed, k.name, r.steps)
		}
	}
}

// --- the agent's calls ---

func (r *modelRun) createFile() {
	p := pick(r, modelPaths)
	if r.m.disk[p].link {
		r.bash()
		return
	}
	content := r.content(false)
	t := maps.Clone(r.m.disk)
	t[p] = mEntry{data: content, mode: modeOf(t, p)}
	cp := r.m.call("create_file", t, []string{p})
	r.logf("create_file %s %q -> %s", p, content, cpName(cp))
	r.call("create_file", map[string]any{"path": p, "content": content})
}

// tokenRe matches the words content and token write: each one unique.
var tokenRe = regexp.MustCompile(`w\d{6}`)

// strReplace replaces a token in a regular file, or creates a file when
// no file has one.
func (r *modelRun) strReplace() {
	var files []string
	for _, p := range modelPaths {
		if e, ok := r.m.disk[p]; ok && !e.link && tokenRe.MatchString(e.data) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		r.createFile()
		return
	}
	p := pick(r, files)
	old := pick(r, tokenRe.FindAllString(r.m.disk[p].data, -1))
	replacement := r.token()
	if r.rng.IntN(3) == 0 {
		replacement += " " + r.token()
	}
	t := maps.Clone(r.m.disk)
	e := t[p]
	e.data = strings.Replace(e.data, old, replacement, 1)
	t[p] = e
	cp := r.m.call("str_replace", t, []string{p})
	r.logf("str_replace %s %s -> %q: %s", p, old, replacement, cpName(cp))
	r.call("str_replace", map[string]any{"path": p, "old_str": old, "new_str": replacement})
}

// bash runs one to three shell changes in one command.
func (r *modelRun) bash() {
	t := maps.Clone(r.m.disk)
	var cmds []string
	for range 1 + r.rng.IntN(3) {
		if c := r.shellChange(t, false); c != "" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 {
		cmds = append(cmds, "mkdir -p "+pick(r, modelDirs)) // changes no file: no checkpoint
	}
	command := strings.Join(cmds, " && ")
	cp := r.m.call("bash", t, nil)
	r.logf("bash %q -> %s", command, cpName(cp))
	if out := r.call("bash", map[string]any{"command": command}); !strings.HasSuffix(out, "exit_code: 0") {
		r.fail("bash %q: got %q, want exit code 0", command, out)
	}
}

// background starts a background task that writes a file and waits for
// it to end: its change is recorded when it ends.
func (r *modelRun) background() {
	t := maps.Clone(r.m.disk)
	command := ""
	for range 20 {
		if command = r.shellChange(t, true); command != "" {
			break
		}
	}
	if command == "" { // every file a symbolic link
		r.bash()
		return
	}
	cp := r.m.call("bash", t, nil)
	if cp != nil {
		cp.mixed = true
	}
	r.logf("background %q -> %s", command, cpName(cp))
	out := r.call("bash", map[string]any{"command": command, "run_in_background": true})
	id := taskIDRe.FindStringSubmatch(out)
	if id == nil {
		r.fail("bash in the background: got %q, want a task_id", out)
	}
	out = r.call("task_output", map[string]any{"task_id": id[1], "block": true, "timeout": 30000})
	if !strings.Contains(out, "status: completed") || !strings.HasSuffix(out, "exit_code: 0") {
		r.fail("task_output %s: got %q, want it completed with exit code 0", id[1], out)
	}
}

// shellChange returns a command making one random change, and applies
// the change to t; "" when the change picked does not apply. With write,
// the change is a write to a file.
func (r *modelRun) shellChange(t mTree, write bool) string {
	p := pick(r, modelPaths)
	e, exists := t[p]
	mkdir := "mkdir -p " + path.Dir(p) + " && "
	n := r.rng.IntN(8)
	if write {
		n %= 3
	}
	switch {
	case n <= 2 && e.link: // writing would follow the link out of the set
		return ""
	case n == 0:
		tok := r.token()
		r.writeTo(t, p, e.data+tok+"\n")
		return mkdir + fmt.Sprintf(`printf '%%s\n' %s >> %s`, tok, p)
	case n == 1:
		r.writeTo(t, p, e.data+"\x01\x00\xff")
		return mkdir + `printf '\001\000\377' >> ` + p
	case n == 2:
		tok := r.token()
		r.writeTo(t, p, tok+"\r\n")
		return mkdir + fmt.Sprintf(`printf '%%s\r\n' %s > %s`, tok, p)
	case n == 3 && exists:
		delete(t, p)
		return "rm -f " + p
	case n == 4 && exists:
		dst := pick(r, modelPaths)
		if dst == p {
			return ""
		}
		t[dst] = e
		delete(t, p)
		return "mkdir -p " + path.Dir(dst) + " && mv -f " + p + " " + dst
	case n == 5 && exists && !e.link:
		e.mode ^= 0o111
		t[p] = e
		if e.mode&0o100 != 0 {
			return "chmod a+x " + p
		}
		return "chmod a-x " + p
	case n == 6:
		return "mkdir -p " + pick(r, modelDirs)
	case n == 7:
		target := "nowhere-" + r.token() // dangling: nothing follows it
		t[p] = mEntry{link: true, data: target}
		return "rm -f " + p + " && " + mkdir + "ln -s " + target + " " + p
	}
	return ""
}

// writeTo is a shell's write of data to p.
func (r *modelRun) writeTo(t mTree, p, data string) {
	t[p] = mEntry{data: data, mode: modeOf(t, p)}
}

// modeOf is the mode a file written at p gets: an existing file keeps its
// own, a new one gets 0644 (create_file's, and the shell's under umask 022).
func modeOf(t mTree, p string) fs.FileMode {
	if e, ok := t[p]; ok {
		return e.mode
	}
	return 0o644
}

// --- changes outside Boris ---

// outside makes one or two changes on disk directly, as an editor or
// another program would: create, edit, delete, rename, chmod. They are
// recorded when the next call that changes files starts.
func (r *modelRun) outside() {
	var did []string
	for range 1 + r.rng.IntN(2) {
		if d := r.outsideChange(); d != "" {
			did = append(did, d)
		}
	}
	r.logf("outside: %s", strings.Join(did, "; "))
	r.checkTree()
	r.checkHistory() // waits for recordings under way: after the change, so it hides nothing
}

func (r *modelRun) outsideChange() string {
	p := pick(r, modelPaths)
	e, exists := r.m.disk[p]
	t := maps.Clone(r.m.disk)
	var did string
	switch n := r.rng.IntN(5); {
	case !exists || n == 0:
		if exists {
			r.check(os.Remove(r.abs(p)))
		}
		t[p] = mEntry{data: r.content(true), mode: r.pickMode()}
		r.writeEntry(p, t[p])
		did = "create " + p
	case n == 1 && !e.link:
		e.data = r.content(true)
		t[p] = e
		r.check(os.WriteFile(r.abs(p), []byte(e.data), 0o644)) // keeps the mode
		did = "edit " + p
	case n == 2:
		delete(t, p)
		r.check(os.Remove(r.abs(p)))
		did = "delete " + p
	case n == 3:
		dst := pick(r, modelPaths)
		if dst == p {
			return ""
		}
		t[dst] = e
		delete(t, p)
		r.check(os.MkdirAll(filepath.Dir(r.abs(dst)), 0o755))
		r.check(os.Rename(r.abs(p), r.abs(dst)))
		did = "rename " + p + " " + dst
	case n == 4 && !e.link:
		e.mode ^= 0o111
		t[p] = e
		r.check(os.Chmod(r.abs(p), e.mode))
		did = fmt.Sprintf("chmod %o %s", e.mode, p)
	default:
		return ""
	}
	r.m.disk = t
	return did
}

// --- undo ---

// randomUndo undoes the latest checkpoint, the previous undo or an
// earlier checkpoint (mostly the agent's); with a path or not, forced or
// not.
func (r *modelRun) randomUndo() {
	var agent []int
	for _, cp := range r.m.cps {
		if !r.m.notOurs(cp) && cp.tool != "start" {
			agent = append(agent, cp.id)
		}
	}
	id := 0 // the latest
	switch n := r.rng.IntN(10); {
	case n < 3:
	case n < 5 && r.lastUndoID != 0:
		id = r.lastUndoID
	case n < 9 && len(agent) > 0:
		id = pick(r, agent)
	default: // any, the first and outside ones too
		id = 1 + r.rng.IntN(len(r.m.cps))
	}
	at := ""
	if r.rng.IntN(3) == 0 {
		at = pick(r, append(slices.Clone(modelPaths), modelDirs...))
	}
	r.undo(id, at, r.rng.IntN(4) == 0)
}

var (
	undidRe   = regexp.MustCompile(`^Undid (cp_\d+): `)
	undoCPRe  = regexp.MustCompile(`This undo is checkpoint (cp_\d+); undo it to redo`)
	errCodeRe = regexp.MustCompile(`^\[([A-Z_]+)\] `)
)

// undo calls undo{checkpoint: cp_id (0: none, the latest), path: at,
// force}, checks its answer against the model and, when it went ahead
// without force, that it left every outside change in place. It returns
// the code the model expects it to fail with, "" for none.
func (r *modelRun) undo(id int, at string, force bool) string {
	args, desc := map[string]any{}, "latest"
	if id != 0 {
		desc = fmt.Sprintf("cp_%d", id)
		args["checkpoint"] = desc
	}
	if at != "" {
		args["path"] = at
		desc += " at " + at
	}
	if force {
		args["force"] = true
		desc += " forced"
	}
	r.m.record("outside", nil) // as the undo will first
	outside := r.m.outsideMade()
	code, target, made := r.m.undo(id, at, force)
	if made != nil {
		r.lastUndoID = made.id
	}
	r.logf("undo %s -> %s", desc, orStr(code, cpName(made)))
	res := r.callResult("undo", args)
	got := text(res)
	if !res.IsError && !force && (target == nil || !r.m.notOurs(target)) {
		r.checkOutsideKept(desc, outside)
	}
	undid, own := undidRe.FindStringSubmatch(got), undoCPRe.FindStringSubmatch(got)
	switch m := errCodeRe.FindStringSubmatch(got); {
	case res.IsError && (m == nil || m[1] != code):
		r.fail("undo %s: got error %q, want %s", desc, got, orStr(code, "success"))
	case res.IsError && code == "CONFLICT":
		for _, o := range r.m.outsideAfter(target, target.pathsAt(at)) {
			if !strings.Contains(got, cpName(o)+",") {
				r.fail("undo %s: got %q, want the conflict to name %s (%s)", desc, got, cpName(o), o)
			}
		}
	case res.IsError:
	case code != "":
		r.fail("undo %s: got success %q, want [%s]", desc, got, code)
	case undid == nil || undid[1] != cpName(target):
		r.fail("undo %s: got %q, want it to undo %s", desc, got, cpName(target))
	case made != nil && own == nil:
		r.fail("undo %s: got %q, which names no checkpoint of the undo's own; want %s (%s): the undo changed files and is not recorded", desc, got, cpName(made), made)
	case made == nil && own != nil, made != nil && own[1] != cpName(made):
		r.fail("undo %s: got %q, want the undo's own checkpoint to be %s", desc, got, cpName(made))
	}
	r.checkTree()
	r.checkHistory()
	return code
}

// checkOutsideKept fails unless every path in outside (what changes made
// outside Boris left, before the undo) is as it was: an undo without force
// never overwrites one, unless it undoes that outside checkpoint itself
// (the caller leaves those out).
func (r *modelRun) checkOutsideKept(desc string, outside []string) {
	now := r.snap()
	for _, p := range outside {
		if k := filepath.FromSlash(p); now[k] != r.lastSnap[k] {
			r.fail("undo %s, without force, overwrote %s, which held a change made outside Boris: it held %s, now %s",
				desc, p, orStr(r.lastSnap[k], "nothing"), orStr(now[k], "nothing"))
		}
	}
}

// unwind undoes every agent checkpoint, newest first, forcing nothing.
// Where one is refused (CONFLICT: a later outside checkpoint changed one
// of its files), each of its files no later outside checkpoint changed is
// undone alone, with path. Then every file no outside checkpoint changed
// is back as the session found it, and every other holds what the last
// outside checkpoint of it left there: the initial tree plus every change
// made outside Boris, byte for byte and mode for mode.
func (r *modelRun) unwind() {
	r.logf("--- undo every agent checkpoint, newest first")
	var agent []*mCheckpoint
	for _, cp := range slices.Backward(r.m.cps[1:]) {
		if !r.m.notOurs(cp) {
			agent = append(agent, cp)
		}
	}
	for _, cp := range agent {
		if r.undo(cp.id, "", false) != "CONFLICT" {
			continue
		}
		for _, p := range cp.pathsAt("") {
			if len(r.m.outsideAfter(cp, []string{p})) == 0 {
				r.undo(cp.id, p, false)
			}
		}
	}
	if diff := cmp.Diff(r.m.initialPlusOutside().render(), r.snap()); diff != "" {
		r.fail("after undoing every agent checkpoint, the tree is not the initial tree plus every change made outside Boris (-want +got):\n%s", diff)
	}
}
