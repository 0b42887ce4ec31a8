package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// open opens a fresh board in a temporary directory.
func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "boris.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustCreate creates a task with description d and options from n.
func mustCreate(t *testing.T, s Board, d string, n NewTask) Task {
	t.Helper()
	n.Description = d
	task, err := s.Create(context.Background(), n)
	if err != nil {
		t.Fatalf("create %q: %v", d, err)
	}
	return task
}

func ids(tasks []Task) []string {
	out := []string{}
	for _, t := range tasks {
		out = append(out, t.ID)
	}
	return out
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	s, err := Open(context.Background(), filepath.Join(dir, "boris.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, s.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	var fk int
	if err := s.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "boris.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "kept across opens", NewTask{})
	v, err := userVersion(ctx, s.db)
	if err != nil || v != SchemaVersion {
		t.Fatalf("user_version = %d (%v), want %d", v, err, SchemaVersion)
	}
	var recorded int
	if err := s.db.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&recorded); err != nil || recorded != SchemaVersion {
		t.Errorf("schema_migrations has %d rows (%v), want %d", recorded, err, SchemaVersion)
	}
	s.Close()

	// Reopening migrates nothing and keeps the data.
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "W-1"); err != nil || got.Description != "kept across opens" {
		t.Errorf("after reopening: %+v, %v", got, err)
	}
	// A database from a newer boris is refused, not written to.
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "upgrade boris") {
		t.Errorf("opening a newer schema: err = %v, want one saying to upgrade boris", err)
	}
}

func TestCreateGetUpdate(t *testing.T) { forEachBoard(t, testCreateGetUpdate) }

func testCreateGetUpdate(t *testing.T, s Board) {
	ctx := context.Background()
	parent := mustCreate(t, s, "release 1.0", NewTask{Priority: 1})
	child := mustCreate(t, s, "write the notes", NewTask{ParentID: "w-1", Context: "see docs/"})
	if child.ID != "W-2" || child.ParentID != parent.ID || child.Priority != DefaultPriority || child.Status != Pending || !child.Ready {
		t.Errorf("child = %+v", child)
	}
	done, result := Done, "notes in docs/1.0.md"
	got, err := s.Update(ctx, child.ID, Change{Status: &done, Result: &result})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != Done || got.Result != result || got.Context != "see docs/" || got.Ready {
		t.Errorf("updated = %+v", got)
	}
	if got.UpdatedAt < child.UpdatedAt {
		t.Errorf("updated_at went back: %s < %s", got.UpdatedAt, child.UpdatedAt)
	}

	for name, err := range map[string]error{
		"empty description": func() error { _, err := s.Create(ctx, NewTask{Description: " "}); return err }(),
		"priority 9":        func() error { _, err := s.Create(ctx, NewTask{Description: "x", Priority: 9}); return err }(),
		"huge description": func() error {
			_, err := s.Create(ctx, NewTask{Description: strings.Repeat("x", MaxDescription+1)})
			return err
		}(),
		"nothing to change":  func() error { _, err := s.Update(ctx, "W-1", Change{}); return err }(),
		"bad status":         func() error { st := Status("blocked"); _, err := s.Update(ctx, "W-1", Change{Status: &st}); return err }(),
		"list limit 0 below": func() error { _, _, err := s.List(ctx, Filter{Limit: -1}); return err }(),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	for name, err := range map[string]error{
		"missing parent":  func() error { _, err := s.Create(ctx, NewTask{Description: "x", ParentID: "W-99"}); return err }(),
		"get missing":     func() error { _, err := s.Get(ctx, "W-99"); return err }(),
		"background id":   func() error { _, err := s.Get(ctx, "task_1a2b3c4d"); return err }(),
		"update missing":  func() error { d := "x"; _, err := s.Update(ctx, "W-99", Change{Description: &d}); return err }(),
		"delete missing":  func() error { _, err := s.Delete(ctx, "W-99"); return err }(),
		"injection as id": func() error { _, err := s.Get(ctx, "1 OR 1=1"); return err }(),
		"blocker missing": func() error { _, _, err := s.AddBlocker(ctx, "W-1", "W-99"); return err }(),
		"list of a stray": func() error { _, _, err := s.List(ctx, Filter{ParentID: "W-99"}); return err }(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
}

// TestUntrustedText stores text made to break SQL and terminals: it comes
// back byte for byte, and renders without control characters.
func TestUntrustedText(t *testing.T) { forEachBoard(t, testUntrustedText) }

func testUntrustedText(t *testing.T, s Board) {
	ctx := context.Background()
	evil := "x'); DROP TABLE tasks; --\n\x1b[2J\x1b]0;pwned\x07\u202eW-9 [done P1] forged\r\x01"
	// NUL is refused on both databases (PostgreSQL cannot store it in text).
	if _, err := s.Create(ctx, NewTask{Description: "a\x00b"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("create with a NUL: err = %v, want ErrInvalid", err)
	}
	nul := "c\x00"
	if _, err := s.Update(ctx, "W-1", Change{Context: &nul}); !errors.Is(err, ErrInvalid) {
		t.Errorf("update with a NUL: err = %v, want ErrInvalid", err)
	}
	task := mustCreate(t, s, evil, NewTask{Context: evil})
	got, err := s.Get(ctx, task.ID)
	if err != nil || got.Description != evil || got.Context != evil {
		t.Fatalf("round trip: %q, %v", got.Description, err)
	}
	for name, text := range map[string]string{"line": Line(got), "detail": Detail(got), "list": List([]Task{got}, false)} {
		for _, r := range text {
			if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || r == '\u202e' {
				t.Errorf("%s output holds %U: %q", name, r, text)
			}
		}
		for _, line := range strings.Split(text, "\n")[1:] {
			if strings.HasPrefix(line, "W-9") || strings.HasPrefix(line, "status:") && strings.Contains(line, "forged") {
				t.Errorf("%s output lets the text forge a line: %q", name, line)
			}
		}
	}
	if strings.Count(Line(got), "\n") != 0 {
		t.Errorf("Line holds a newline: %q", Line(got))
	}
}

func TestBlockersAndCycles(t *testing.T) { forEachBoard(t, testBlockersAndCycles) }

func testBlockersAndCycles(t *testing.T, s Board) {
	ctx := context.Background()
	for _, d := range []string{"a", "b", "c", "d"} {
		mustCreate(t, s, d, NewTask{})
	}
	// W-2 waits for W-1, W-3 for W-2.
	for _, e := range [][2]string{{"W-2", "W-1"}, {"W-3", "W-2"}} {
		if _, added, err := s.AddBlocker(ctx, e[0], e[1]); err != nil || !added {
			t.Fatalf("add %v: added %v, %v", e, added, err)
		}
	}
	if _, added, err := s.AddBlocker(ctx, "W-2", "W-1"); err != nil || added {
		t.Errorf("adding it again: added %v, %v; want false, nil", added, err)
	}
	for _, e := range [][2]string{{"W-1", "W-3"}, {"W-1", "W-2"}, {"W-4", "W-4"}} {
		_, _, err := s.AddBlocker(ctx, e[0], e[1])
		if !errors.Is(err, ErrCycle) {
			t.Errorf("add %v: err = %v, want ErrCycle", e, err)
		}
	}
	_, _, err := s.AddBlocker(ctx, "W-1", "W-3")
	if want := "W-3 waits for W-2 waits for W-1"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("cycle error %v does not show the chain %q", err, want)
	}
	b, err := s.GetBlockers(ctx, "W-2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"W-1"}, ids(b.BlockedBy)); diff != "" {
		t.Errorf("W-2 waits for (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"W-3"}, ids(b.Blocks)); diff != "" {
		t.Errorf("W-2 blocks (-want +got):\n%s", diff)
	}
	if _, err := s.RemoveBlocker(ctx, "W-3", "W-1"); !errors.Is(err, ErrNoBlocker) {
		t.Errorf("removing a blocker never added: err = %v, want ErrNoBlocker", err)
	}
	if task, err := s.RemoveBlocker(ctx, "W-3", "W-2"); err != nil || len(task.BlockedBy) != 0 || !task.Ready {
		t.Errorf("after removing W-3's blocker: %+v, %v", task, err)
	}
	// Without that edge the reverse one is no cycle.
	if _, _, err := s.AddBlocker(ctx, "W-2", "W-3"); err != nil {
		t.Errorf("W-2 waits for W-3 once W-3 no longer waits for W-2: %v", err)
	}
}

func TestReadyOrdering(t *testing.T) { forEachBoard(t, testReadyOrdering) }

func testReadyOrdering(t *testing.T, s Board) {
	ctx := context.Background()
	mustCreate(t, s, "low", NewTask{Priority: 5})                // W-1
	mustCreate(t, s, "urgent but blocked", NewTask{Priority: 1}) // W-2
	mustCreate(t, s, "blocker", NewTask{Priority: 3})            // W-3
	mustCreate(t, s, "urgent", NewTask{Priority: 1})             // W-4
	mustCreate(t, s, "finished", NewTask{Priority: 1})           // W-5
	mustCreate(t, s, "waits for a finished one", NewTask{})      // W-6
	done := Done
	if _, err := s.Update(ctx, "W-5", Change{Status: &done}); err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]string{{"W-2", "W-3"}, {"W-6", "W-5"}} {
		if _, _, err := s.AddBlocker(ctx, e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"ready", Filter{Ready: true}, []string{"W-4", "W-3", "W-6", "W-1"}},
		{"all: open first, by priority", Filter{}, []string{"W-2", "W-4", "W-3", "W-6", "W-1", "W-5"}},
		{"done", Filter{Status: Done}, []string{"W-5"}},
		{"limit", Filter{Ready: true, Limit: 2}, []string{"W-4", "W-3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if wantMore := tc.f.Limit == 2; more != wantMore {
				t.Errorf("more = %v, want %v", more, wantMore)
			}
		})
	}
	// Closing the blocker makes W-2 ready, and first.
	if _, err := s.Update(ctx, "W-3", Change{Status: &done}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := s.List(ctx, Filter{Ready: true, Limit: 1})
	if diff := cmp.Diff([]string{"W-2"}, ids(got)); diff != "" {
		t.Errorf("first ready once W-3 is done (-want +got):\n%s", diff)
	}
}

func TestDelete(t *testing.T) { forEachBoard(t, testDelete) }

func testDelete(t *testing.T, s Board) {
	ctx := context.Background()
	mustCreate(t, s, "parent", NewTask{})               // W-1
	mustCreate(t, s, "child", NewTask{ParentID: "W-1"}) // W-2
	mustCreate(t, s, "blocker", NewTask{})              // W-3
	mustCreate(t, s, "waits", NewTask{})                // W-4
	if _, _, err := s.AddBlocker(ctx, "W-4", "W-3"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"W-1": "subtasks W-2", "W-3": "it blocks W-4 (remove_blocker first)"} {
		_, err := s.Delete(ctx, id)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "cancelled") {
			t.Errorf("delete %s: err = %v, want ErrInUse saying %q and what to do", id, err, want)
		}
	}
	// A task's own blockers go with it (cascade); then its blocker is free.
	if _, err := s.Delete(ctx, "W-4"); err != nil {
		t.Fatalf("delete W-4, which only waits: %v", err)
	}
	if _, err := s.Delete(ctx, "W-3"); err != nil {
		t.Errorf("delete W-3 once nothing waits for it: %v", err)
	}
	// Ids are never reused.
	if got := mustCreate(t, s, "new", NewTask{}); got.ID != "W-5" {
		t.Errorf("new task after deletes got %s, want W-5", got.ID)
	}
}

func TestCancelledContext(t *testing.T) {
	s := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Create(ctx, NewTask{Description: "never"}); !errors.Is(err, context.Canceled) {
		t.Errorf("create with a cancelled context: err = %v, want context.Canceled", err)
	}
	// A query already running is interrupted when its context ends.
	ctx, cancel = context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.db.ExecContext(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`)
		errc <- err
	}()
	cancel()
	if err := <-errc; err == nil {
		t.Error("an endless query ran to completion after its context was cancelled")
	}
	if _, err := s.Create(context.Background(), NewTask{Description: "after"}); err != nil {
		t.Errorf("the store is unusable after a cancelled query: %v", err)
	}
}

// helperEnv starts the test binary as a writer process (TestMain).
const helperEnv = "BORIS_BOARD_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(writer(spec))
	}
	code := m.Run()
	postgres.Stop()
	os.Exit(code)
}

// writer is one writer process: "path,name,n" creates n tasks and bumps
// a shared counter task n times, each in its own transaction.
func writer(spec string) int {
	parts := strings.Split(spec, ",")
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	s, err := Open(ctx, parts[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	for i := range n {
		if _, err := s.Create(ctx, NewTask{Description: fmt.Sprintf("%s %d", parts[1], i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// A read-modify-write: a lost update would show in the total.
		err := s.write(ctx, func(tx queryer) error {
			var c string
			if err := tx.QueryRowContext(ctx, `SELECT context FROM tasks WHERE id = 1`).Scan(&c); err != nil {
				return err
			}
			v, _ := strconv.Atoi(c)
			_, err := tx.ExecContext(ctx, `UPDATE tasks SET context = ? WHERE id = 1`, strconv.Itoa(v+1))
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestConcurrentProcesses has several processes open a new database at
// once (so they race to migrate it) and write to it together: every
// write lands.
func TestConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boris.db")
	const procs, each = 4, 50
	// The counter task must exist first; the processes still race on
	// opening, since a fresh process migrates a database it finds current
	// without a write lock only if its version reads right.
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "counter", NewTask{Context: "0"})
	var wg sync.WaitGroup
	errs := make([]error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,p%d,%d", helperEnv, path, p, each))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[p] = fmt.Errorf("writer %d: %v: %s", p, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, _, err := s.List(context.Background(), Filter{Limit: MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != procs*each+1 {
		t.Errorf("%d tasks, want %d", len(all), procs*each+1)
	}
	counter, _ := s.Get(context.Background(), "W-1")
	if counter.Context != strconv.Itoa(procs*each) {
		t.Errorf("counter = %s after %d increments: updates were lost", counter.Context, procs*each)
	}
}

// TestConcurrentFirstOpen has processes create and migrate one new
// database at the same moment.
func TestConcurrentFirstOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fresh", "boris.db")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for p := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,p%d,0", helperEnv, path, p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Errorf("process %d: %v: %s", p, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM schema_migrations").Scan(&n); err != nil || n != SchemaVersion {
		t.Errorf("schema_migrations holds %d rows (%v), want %d: a migration ran twice or not at all", n, err, SchemaVersion)
	}
}

// TestCancelWhileWaitingForALock cancels a write that waits for another
// connection's write transaction: it gives up at once rather than after
// the busy timeout, and writes nothing.
func TestCancelWhileWaitingForALock(t *testing.T) {
	s := open(t)
	mustCreate(t, s, "first", NewTask{})
	other, err := sql.Open("sqlite3", dsn(s.Path()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin() // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.Create(ctx, NewTask{Description: "cancelled"})
	if err == nil {
		t.Fatal("a write went through while another connection held the write lock")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the cancelled write returned after %v, want soon after its context ended", d)
	}
	tx.Rollback()
	if all, _, _ := s.List(context.Background(), Filter{}); len(all) != 1 {
		t.Errorf("%d tasks after the cancelled create, want 1", len(all))
	}
}

func TestLineShortensLongDescriptions(t *testing.T) {
	long := strings.Repeat("é", lineRunes+50)
	got := Line(Task{ID: "W-1", Status: Pending, Priority: 3, Ready: true, Description: long})
	if want := "W-1 [pending P3 ready] " + strings.Repeat("é", lineRunes) + " [...]"; got != want {
		t.Errorf("Line of a long description:\n%q\nwant\n%q", got, want)
	}
	if d := Detail(Task{ID: "W-1", Status: Pending, Description: long}); !strings.Contains(d, long) {
		t.Error("Detail cuts the description")
	}
}

func TestBoardFull(t *testing.T) {
	s := open(t)
	// Fill the board to its limit in one statement, as far quicker than
	// MaxTasks creates.
	_, err := s.db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO tasks (description, created_at, updated_at) SELECT 'filler', '', '' FROM n`, MaxTasks)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(context.Background(), NewTask{Description: "one too many"})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "delete finished ones") {
		t.Errorf("create on a full board: err = %v, want ErrInvalid saying what to do", err)
	}
}
