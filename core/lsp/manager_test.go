package lsp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		runFake()
		return
	}
	os.Exit(m.Run())
}

// fixture is a Manager whose Go server is the fake, over a temporary
// directory, with the pids of every server it started.
type fixture struct {
	t    *testing.T
	dir  string
	m    *Manager
	mu   sync.Mutex
	pids []int
}

// newFixture starts a Manager with the fake as the Go server, run with
// the given BORIS_LSP_FAKE value and options.
func newFixture(t *testing.T, mode string, opts Options) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	if opts.Commands == nil {
		opts.Commands = map[string][]string{"go": {os.Args[0]}}
	}
	opts.Root = f.dir
	opts.Env = append(os.Environ(), fakeEnv+"="+mode, fakeEnv+"_MARK="+filepath.Join(f.dir, ".crashed"))
	opts.Read = os.ReadFile
	opts.Wait = max(opts.Wait, 5*time.Second)
	opts.Launch = f.launch
	f.m = New(opts)
	t.Cleanup(f.close)
	return f
}

// launch starts a server as a plain child process.
func (f *fixture) launch(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	f.mu.Lock()
	f.pids = append(f.pids, cmd.Process.Pid)
	f.mu.Unlock()
	wait := make(chan syscall.WaitStatus, 1)
	go func() {
		_ = cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		wait <- ws
	}()
	return cmd.Process.Pid, wait, nil
}

// close closes the Manager and checks that no server it started is left.
func (f *fixture) close() {
	f.m.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, pid := range f.pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			f.t.Errorf("server pid %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
}

// write writes content to name as a tool would and returns what the
// Manager adds to the tool's result.
func (f *fixture) write(name, content string) string {
	f.t.Helper()
	path := filepath.Join(f.dir, name)
	before, err := os.ReadFile(path)
	existed := err == nil
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return f.m.Edited([]Edit{{Path: path, Before: before, Existed: existed}})
}

// step is one edit and what its result must and must not say.
type step struct {
	content       string
	want, notWant []string
	empty         bool
}

// run writes each step's content to name in turn and checks the result.
func (f *fixture) run(name string, steps []step) {
	f.t.Helper()
	for i, s := range steps {
		got := f.write(name, s.content)
		if s.empty && got != "" {
			f.t.Errorf("step %d: got %q, want nothing", i, got)
		}
		for _, w := range s.want {
			if !strings.Contains(got, w) {
				f.t.Errorf("step %d: got %q, want it to contain %q", i, got, w)
			}
		}
		for _, w := range s.notWant {
			if strings.Contains(got, w) {
				f.t.Errorf("step %d: got %q, want no %q", i, got, w)
			}
		}
	}
}

func TestEditedReportsChanges(t *testing.T) {
	for _, mode := range []string{"versioned", "noversion"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, mode, Options{})
			f.run("a.go", []step{
				{content: "package a\n", empty: true},
				{content: "package a\n\nvar x = ERR:foo\n", want: []string{"[diagnostics] a.go: 1 new problem", "new   error 3:9 undefined: foo (fake)"}},
				{content: "// moved down\npackage a\n\nvar x = ERR:foo\n", empty: true},
				{content: "// moved down\npackage a\n\nvar x = ERR:foo + WARN:y\n", want: []string{"a.go: 1 new problem", "new   warning 4:19 unused: y"}, notWant: []string{"foo"}},
				{content: "// moved down\npackage a\n\nvar x = 1\n", want: []string{"a.go: 2 fixed", "fixed error 4:9 undefined: foo", "fixed warning"}, notWant: []string{"new"}},
				{content: "// moved down\npackage a\n\nvar x = 2\n", empty: true},
			})
		})
	}
}

// An edit's first check compares with the server's view of the file
// before the edit: problems it already had are not news.
func TestFirstEditComparesWithFileBefore(t *testing.T) {
	f := newFixture(t, "versioned", Options{})
	if err := os.WriteFile(filepath.Join(f.dir, "b.go"), []byte("package b\nvar old = ERR:old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.run("b.go", []step{
		{content: "package b\n\nvar old = ERR:old\n", empty: true},
		{content: "package b\n\nvar old = ERR:old + ERR:fresh\n", want: []string{"1 new problem", "undefined: fresh"}, notWant: []string{"undefined: old"}},
	})
}

func TestLateDiagnosticsComeWithTheNextResult(t *testing.T) {
	f := newFixture(t, "versioned", Options{})
	f.m.opts.Wait = 50 * time.Millisecond
	if got := f.write("c.go", "package c\n"); got != "" {
		t.Fatalf("create: got %q, want nothing", got)
	}
	got := f.write("c.go", "package c // SLEEP:700\nvar y = ERR:slow\n")
	if strings.Contains(got, "slow") {
		t.Fatalf("got %q at once from a server that answers after 700ms; want it late", got)
	}
	var late string
	deadline := time.Now().Add(10 * time.Second)
	for late == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		late = f.m.Late()
	}
	if want := "[diagnostics] late, c.go: 1 new problem\n  new   error 2:9 undefined: slow (fake)"; late != want {
		t.Fatalf("late: got %q, want %q", late, want)
	}
	if again := f.m.Late(); again != "" {
		t.Errorf("late a second time: got %q, want nothing (said once)", again)
	}
}

func TestMissingServerIsSaidOnce(t *testing.T) {
	f := newFixture(t, "versioned", Options{Commands: map[string][]string{"go": {filepath.Join(t.TempDir(), "no-gopls")}}})
	got := f.write("d.go", "package d\nvar z = ERR:z\n")
	if !strings.Contains(got, "[diagnostics] no Go language server") || !strings.Contains(got, "--lsp go=COMMAND") {
		t.Fatalf("first edit: got %q, want the one line saying there is no Go server", got)
	}
	if got := f.write("d.go", "package d\nvar z = ERR:zz\n"); got != "" {
		t.Errorf("second edit: got %q, want nothing (said once)", got)
	}
	if got := f.write("notes.txt", "ERR:x"); got != "" {
		t.Errorf("a file of no language: got %q, want nothing", got)
	}
}

func TestCrashedServerIsRestartedOnce(t *testing.T) {
	f := newFixture(t, "versioned", Options{})
	f.run("e.go", []step{
		{content: "package e\n", empty: true},
		// The server crashes on this version once; the restarted one answers.
		{content: "package e // CRASH:once\nvar v = ERR:v\n", want: []string{"1 new problem", "undefined: v"}, notWant: []string{"crashed"}},
		// This one crashes the restarted server too: no third start.
		{content: "package e // CRASH\n", want: []string{"[diagnostics] the Go language server", "crashed (exit status 3) after a restart: Go edits are no longer checked"}},
		{content: "package e\nvar w = ERR:w\n", empty: true},
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pids) != 2 {
		t.Errorf("servers started: got %d, want 2 (the first, and one restart)", len(f.pids))
	}
}

func TestCurrentListsProblems(t *testing.T) {
	f := newFixture(t, "versioned", Options{})
	f.write("g.go", "package g\nvar a = ERR:a\n")
	// Changed behind the servers' back, as a bash command would.
	path := filepath.Join(f.dir, "g.go")
	if err := os.WriteFile(path, []byte("package g\nvar a = ERR:a + ERR:b + WARN:c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{path, ""} {
		got, err := f.m.Current(query, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := "3 problems in 1 file:\ng.go\n  error 2:9 undefined: a (fake)\n  error 2:17 undefined: b (fake)\n  warning 2:25 unused: c (fake)"
		if got != want {
			t.Errorf("Current(%q): got %q, want %q", query, got, want)
		}
	}
	// What was listed is known: the next edit reports against it.
	f.run("g.go", []step{{content: "package g\nvar a = ERR:a + ERR:b\n", want: []string{"1 fixed", "unused: c"}, notWant: []string{"new"}}})
	if _, err := f.m.Current(filepath.Join(f.dir, "README.md"), time.Second); err == nil {
		t.Errorf("Current of a Markdown file: got no error, want one saying no server handles it")
	}
}

func TestIdleServerStops(t *testing.T) {
	f := newFixture(t, "versioned", Options{Idle: 100 * time.Millisecond})
	f.write("h.go", "package h\nvar a = ERR:a\n")
	f.mu.Lock()
	pid := f.pids[0]
	f.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("idle server pid %d: still there (%v)", pid, err)
	}
	// The next edit starts a new one and still reports against what was said.
	f.run("h.go", []step{{content: "package h\nvar a = 1\n", want: []string{"1 fixed"}}})
}

// TestQuietServerIsProbed: a server that publishes nothing when a file
// without problems still has none (typescript-language-server's way) is
// asked directly (Language.Probe): such an edit is done at once, so the
// edits after it are checked in their own results, not held behind a
// wait for a publish that never comes.
func TestQuietServerIsProbed(t *testing.T) {
	goLang := Languages()["go"]
	goLang.Probe = tsserverClean
	f := newFixture(t, "quiet", Options{Languages: map[string]Language{"go": goLang}})
	f.run("q.go", []step{
		{content: "package q\n", empty: true},
		{content: "package q // harmless\n", empty: true},
		{content: "package q // harmless\n\nvar x = ERR:foo\n", want: []string{"[diagnostics] q.go: 1 new problem", "undefined: foo"}},
		{content: "package q // harmless\n\nvar x = ERR:foo // still\n", empty: true},
		{content: "package q\n", want: []string{"q.go: 1 fixed", "fixed error 3:9 undefined: foo"}},
		{content: "package q // harmless again\n", empty: true},
		{content: "package q // harmless again\n\nvar y = ERR:bar\n", want: []string{"1 new problem", "undefined: bar"}},
	})
}
