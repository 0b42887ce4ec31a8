package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// anyText in a want field means the text is not checked (e.g. a shell's
// wording of a syntax error).
const anyText = "<any>"

func newShell(t *testing.T) *Shell {
	t.Helper()
	s, err := New(t.TempDir(), Config{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func mustRun(t *testing.T, s *Shell, command string, opts Options) *Result {
	t.Helper()
	res, err := s.Run(context.Background(), command, opts)
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		wantErr bool
	}{
		{"directory", dir, false},
		{"relative", ".", false},
		{"missing", filepath.Join(dir, "nope"), true},
		{"file", file, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.dir, Config{})
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("New(%q) error = %v, want error %v", tt.dir, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if !filepath.IsAbs(s.Dir()) {
				t.Errorf("Dir() = %q, want absolute", s.Dir())
			}
			if p := s.Path(); p != "/bin/bash" && p != "/bin/sh" {
				t.Errorf("Path() = %q, want /bin/bash or /bin/sh", p)
			}
		})
	}
}

func TestRunResults(t *testing.T) {
	tests := []struct {
		name                   string
		command                string
		wantStdout, wantStderr string
		wantExit               int
	}{
		{"echo", "echo hi", "hi\n", "", 0},
		{"streams separated", "echo out; echo err >&2", "out\n", "err\n", 0},
		{"exit code is data", "echo x; exit 3", "x\n", "", 3},
		{"false", "false", "", "", 1},
		{"killed by signal", "kill -TERM $$", "", "", 143},
		{"no trailing newline", "printf abc", "abc", "", 0},
		{"blank lines byte-exact", `printf 'a\n\n'`, "a\n\n", "", 0},
		{"leading newline kept", `printf '\nz'`, "\nz", "", 0},
		{"empty output", "true", "", "", 0},
		{"stdin is /dev/null", "cat; echo done", "done\n", "", 0},
		{"no positional parameters", `echo "$#"`, "0\n", "", 0},
		{"multi-line", "echo a\necho b", "a\nb\n", "", 0},
		{"unterminated quote is syntax error", "echo 'abc", "", anyText, 2},
		{"dangling && is syntax error", "echo a &&", "", anyText, 2},
		{"unterminated heredoc", "cat <<EOF\nhello", "hello\n", anyText, 0},
		{"exit trap output kept", "trap 'echo bye' EXIT; echo hi", "hi\nbye\n", "", 0},
	}
	s := newShell(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, tt.command, Options{})
			if res.Stdout != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.wantStdout)
			}
			if tt.wantStderr != anyText && res.Stderr != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", res.Stderr, tt.wantStderr)
			}
			if res.ExitCode != tt.wantExit {
				t.Errorf("exit code = %d, want %d", res.ExitCode, tt.wantExit)
			}
			if res.TimedOut || res.Canceled || res.StdoutCut != 0 || res.StderrCut != 0 {
				t.Errorf("got TimedOut %v, Canceled %v, cuts %d/%d; want false, false, 0/0",
					res.TimedOut, res.Canceled, res.StdoutCut, res.StderrCut)
			}
		})
	}
}

// TestErrorLineNumbers checks that wrapping the command does not shift the
// line numbers bash reports, which the agent uses to find its mistake.
func TestErrorLineNumbers(t *testing.T) {
	s := newShell(t)
	if s.Path() != "/bin/bash" {
		t.Skip("message format is bash's")
	}
	res := mustRun(t, s, "true\nnosuchcmd_boris", Options{})
	if want := "line 2: nosuchcmd_boris: command not found"; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr = %q, want it to contain %q", res.Stderr, want)
	}
}

func TestSentinelNeverInOutput(t *testing.T) {
	tests := []struct{ name, command string }{
		{"no trailing newline", "printf abc"},
		{"cd then partial line", "cd / && printf x"},
		{"shell argv", `tr '\0' ' ' < /proc/$$/cmdline`},
		{"xtrace of the trailer", "set -x; cd /"},
		{"exit trap after record", "trap 'printf tail' EXIT; printf head"},
	}
	s := newShell(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, tt.command, Options{})
			for _, out := range []string{res.Stdout, res.Stderr} {
				if strings.Contains(out, s.sentinel) || strings.Contains(out, "__BORIS_CWD_") {
					t.Errorf("output %q contains the sentinel", out)
				}
			}
		})
	}
}

func TestWorkingDirectory(t *testing.T) {
	type step struct {
		command    string
		wantStdout string
		wantDir    string // relative to the start dir unless absolute
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"cd persists", []step{{"cd /tmp", "", "/tmp"}, {"pwd", "/tmp\n", "/tmp"}}},
		{"survives failing command", []step{{"mkdir sub && cd sub && false", "", "sub"}, {"pwd | xargs basename", "sub\n", "sub"}}},
		{"exit leaves dir unchanged", []step{{"mkdir sub && cd sub && exit 3", "", "."}, {"ls", "sub\n", "."}}},
		{"set -e exit leaves dir unchanged", []step{{"mkdir sub; set -e; cd sub; false", "", "."}}},
		{"syntax error leaves dir unchanged", []step{{"echo (", "", "."}}},
		{"deleted dir not adopted", []step{{"mkdir gone && cd gone && rmdir ../gone", "", "."}}},
		{"other state does not persist", []step{{"X=1; f() { :; }", "", "."}, {"echo ${X:-unset}; type f >/dev/null 2>&1 || echo nof", "unset\nnof\n", "."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newShell(t)
			root := s.Dir()
			for _, st := range tt.steps {
				res := mustRun(t, s, st.command, Options{})
				want := st.wantDir
				if !filepath.IsAbs(want) {
					want = filepath.Join(root, want)
				}
				if res.Stdout != st.wantStdout {
					t.Errorf("%q: stdout = %q, want %q", st.command, res.Stdout, st.wantStdout)
				}
				if res.Dir != want || s.Dir() != want {
					t.Errorf("%q: Result.Dir = %q, Dir() = %q; want %q", st.command, res.Dir, s.Dir(), want)
				}
			}
		})
	}
}

// TestTrailerForksNothing: the trailer that reports the working
// directory runs in the command's shell itself, not in a subshell of its
// own (a fork, which costs each call a process): a pwd function the
// command defines sees the shell's own pid when the trailer calls it.
func TestTrailerForksNothing(t *testing.T) {
	s := newShell(t)
	if !strings.HasSuffix(s.path, "bash") {
		t.Skipf("needs bash (BASHPID): the shell is %s", s.path)
	}
	res := mustRun(t, s, `pwd() { if [ "$BASHPID" = "$$" ]; then echo trailer-in-shell >&2; else echo trailer-forked >&2; fi; builtin pwd; }`, Options{})
	if !strings.Contains(res.Stderr, "trailer-in-shell") {
		t.Errorf("stderr %q: the trailer's pwd ran in a subshell, want it in the command's shell", res.Stderr)
	}
	if res.Dir != s.Dir() || res.Stdout != "" {
		t.Errorf("Result (stdout %q, dir %q), want no output and the directory %q", res.Stdout, res.Dir, s.Dir())
	}
}

// TestPOSIXShell runs the wrapper under /bin/sh, used where bash is absent.
func TestPOSIXShell(t *testing.T) {
	s := newShell(t)
	s.path = "/bin/sh"
	root := s.Dir()
	steps := []struct {
		command    string
		wantStdout string
		wantExit   int
		wantDir    string
	}{
		{"mkdir sub && cd sub && false", "", 1, "sub"},
		{`printf 'a\n\n'`, "a\n\n", 0, "sub"},
		{"cd .. && exit 3", "", 3, "sub"},
		{`printf "$#"`, "0", 0, "sub"},
		{"cd ..", "", 0, "."},
	}
	for _, st := range steps {
		res := mustRun(t, s, st.command, Options{})
		got := []any{res.Stdout, res.ExitCode, res.Dir}
		want := []any{st.wantStdout, st.wantExit, filepath.Join(root, st.wantDir)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: (stdout, exit, dir) mismatch (-want +got):\n%s", st.command, diff)
		}
	}
}

func TestRemovedDirFallsBackToParent(t *testing.T) {
	s := newShell(t)
	root := s.Dir()
	mustRun(t, s, "mkdir -p a/b && cd a/b", Options{})
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, s, "pwd", Options{})
	if got, want := res.Stdout, root+"\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if !strings.Contains(res.Stderr, "no longer exists") {
		t.Errorf("stderr = %q, want a note that the directory is gone", res.Stderr)
	}
}

func TestConcurrentRuns(t *testing.T) {
	s := newShell(t)
	const n = 50
	results := make([]*Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := fmt.Sprintf("echo out%d; echo err%d >&2; exit %d", i, i, i%7)
			res, err := s.Run(context.Background(), cmd, Options{})
			if err != nil {
				t.Errorf("Run %d: %v", i, err)
				return
			}
			results[i] = res
		})
	}
	wg.Wait()
	for i, res := range results {
		if res == nil {
			continue
		}
		got := []any{res.Stdout, res.Stderr, res.ExitCode}
		want := []any{fmt.Sprintf("out%d\n", i), fmt.Sprintf("err%d\n", i), i % 7}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("run %d mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func TestCanceledBeforeStart(t *testing.T) {
	s := newShell(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := s.Run(ctx, "touch ran", Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.Canceled || res.ExitCode != -1 {
		t.Errorf("got Canceled %v, ExitCode %d; want true, -1", res.Canceled, res.ExitCode)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("command ran (stat error %v), want it not started", err)
	}
}
