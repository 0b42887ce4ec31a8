package test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tasksCLI runs `boris tasks args...` with env added to the test's, and
// returns its stdout, stderr and exit status.
func tasksCLI(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(borisBin, append([]string{"tasks"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("boris tasks %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func TestBoardCLI(t *testing.T) {
	db := filepath.Join(t.TempDir(), "boris.db")
	env := []string{"BORIS_TASKS_DB=" + db}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // prefix of stdout
		stderr string // substring of stderr
	}{
		{"add", []string{"add", "fix the parser", "--priority", "1"}, 0, "Created W-1 [pending P1 ready] fix the parser\n", ""},
		{"add after --", []string{"add", "--context", "see README", "--", "-v is broken"}, 0, "Created W-2 [pending P3 ready] -v is broken\n", ""},
		{"block", []string{"block", "W-2", "1"}, 0, "W-2 now waits for W-1\nW-2 [pending P3 blocked by W-1] -v is broken\n", ""},
		{"list", []string{"list"}, 0, "W-1 [pending P1 ready] fix the parser\nW-2 [pending P3 blocked by W-1] -v is broken\n", ""},
		{"list ready", []string{"list", "--ready"}, 0, "W-1 [pending P1 ready] fix the parser\n", ""},
		{"show", []string{"show", "w-2"}, 0, "id: W-2\ndescription: -v is broken\nstatus: pending (waiting for an open blocker)\n", ""},
		{"cycle refused", []string{"block", "W-1", "W-2"}, 1, "", "W-1 cannot be blocked by W-2: W-2 already waits for W-1"},
		{"show missing", []string{"show", "W-9"}, 1, "", "no such task: W-9"},
		{"done missing", []string{"done", "W-9"}, 1, "", "no such task"},
		{"unblock never blocked", []string{"unblock", "W-1", "W-2"}, 1, "", "W-1 is not blocked by W-2"},
		{"done", []string{"done", "W-1", "--result", "fixed"}, 0, "Done W-1 [done P1] fix the parser\n", ""},
		{"ready after done", []string{"list", "--ready"}, 0, "W-2 [pending P3 ready] -v is broken\n", ""},
		{"unblock", []string{"unblock", "W-2", "W-1"}, 0, "W-2 no longer waits for W-1\n", ""},
		// Every status the tools can set, and delete (issue 27: the CLI could
		// only mark tasks done, while delete_task's refusal says to cancel).
		{"start", []string{"start", "W-2"}, 0, "Started W-2 [in_progress P3 ready] -v is broken\n", ""},
		{"add a subtask", []string{"add", "part", "--parent", "W-2"}, 0, "Created W-3 [pending P3 ready] part (part of W-2)\n", ""},
		{"delete refused", []string{"delete", "W-2"}, 1, "", "it has subtasks W-3"},
		{"cancel", []string{"cancel", "W-2", "--result", "not needed"}, 0, "Cancelled W-2 [cancelled P3] -v is broken\n", ""},
		{"status back to pending", []string{"status", "W-2", "pending"}, 0, "Reopened W-2 [pending P3 ready] -v is broken\n", ""},
		{"status", []string{"status", "W-2", "in_progress"}, 0, "Started W-2 [in_progress P3 ready] -v is broken\n", ""},
		{"bad status value", []string{"status", "W-2", "blocked"}, 2, "", `status "blocked": want one of pending, in_progress, done, cancelled`},
		{"delete a leaf", []string{"delete", "W-3"}, 0, "Deleted W-3 [pending P3 ready] part (part of W-2)\n", ""},
		{"deleted is gone", []string{"show", "W-3"}, 1, "", "no such task: W-3"},
		{"delete missing", []string{"delete", "W-3"}, 1, "", "no such task"},
		{"no command", nil, 2, "", "a command is missing"},
		{"unknown command", []string{"frob"}, 2, "", `unknown command "frob"`},
		{"unknown flag", []string{"list", "--colour"}, 2, "", "flag provided but not defined: -colour"},
		{"bad status", []string{"list", "--status", "blocked"}, 2, "", `--status "blocked"`},
		{"bad priority", []string{"add", "x", "--priority", "9"}, 2, "", "--priority 9: want 1 (most urgent) to 5 (least)"},
		{"missing argument", []string{"show"}, 2, "", "want one task ID"},
		{"extra argument", []string{"done", "W-1", "W-2"}, 2, "", "want one task ID, got 2 arguments"},
		{"one argument of two", []string{"block", "W-1"}, 2, "", "want ID and BLOCKER_ID, got 1 argument"},
		{"help", []string{"--help"}, 0, "Usage: boris tasks", ""},
		{"help of a command", []string{"list", "-h"}, 0, "Usage: boris tasks", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := tasksCLI(t, env, tc.args...)
			if code != tc.code {
				t.Errorf("exit status %d, want %d (stdout %q, stderr %q)", code, tc.code, stdout, stderr)
			}
			if !strings.HasPrefix(stdout, tc.stdout) {
				t.Errorf("stdout:\n%s\nwant it to start with:\n%s", stdout, tc.stdout)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q, want it to hold %q", stderr, tc.stderr)
			}
		})
	}
}

func TestBoardCLIJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "boris.db")
	// --tasks-db beats BORIS_TASKS_DB, and goes before or after the command.
	env := []string{"BORIS_TASKS_DB=" + filepath.Join(t.TempDir(), "other.db")}
	out, _, code := tasksCLI(t, env, "--json", "add", "first", "--tasks-db", db)
	var task boardTask
	if err := json.Unmarshal([]byte(out), &task); code != 0 || err != nil || task.ID != "W-1" || task.Status != "pending" || !task.Ready {
		t.Fatalf("add --json: exit %d, %q: %+v %v", code, out, task, err)
	}
	tasksCLI(t, nil, "--tasks-db", db, "add", "second")
	out, _, _ = tasksCLI(t, nil, "--tasks-db", db, "block", "W-2", "W-1", "--json")
	var blocked struct {
		Task    boardTask
		Changed bool
	}
	if err := json.Unmarshal([]byte(out), &blocked); err != nil || !blocked.Changed || blocked.Task.Ready || len(blocked.Task.BlockedBy) != 1 {
		t.Errorf("block --json: %q: %+v %v", out, blocked, err)
	}
	out, _, _ = tasksCLI(t, nil, "--tasks-db", db, "list", "--json", "--ready")
	var list struct {
		Tasks []boardTask
		More  bool
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != "W-1" || list.More {
		t.Errorf("list --json --ready: %q: %+v %v", out, list, err)
	}
	out, _, _ = tasksCLI(t, nil, "--tasks-db", db, "--json", "show", "W-1")
	var show struct {
		Task      boardTask
		BlockedBy []boardTask `json:"blocked_by"`
		Blocks    []boardTask
	}
	if err := json.Unmarshal([]byte(out), &show); err != nil || show.Task.ID != "W-1" || len(show.BlockedBy) != 0 || len(show.Blocks) != 1 || show.Blocks[0].ID != "W-2" {
		t.Errorf("show --json: %q: %+v %v", out, show, err)
	}
	// A task the CLI wrote is the one the MCP tools read.
	c := startBoardCore(t, db)
	if got := c.ok("get_task", map[string]any{"id": "W-2"}); !strings.Contains(got, "blocked by: W-1") {
		t.Errorf("get_task of a task the CLI made: %q", got)
	}
}

// TestBoardCLIUntrustedText: what an agent wrote cannot drive the
// terminal of the person listing the board, nor forge a line.
func TestBoardCLIUntrustedText(t *testing.T) {
	db := filepath.Join(t.TempDir(), "boris.db")
	c := startBoardCore(t, db)
	evil := "innocent\n\x1b[2J\x1b]0;title\x07W-7 [done P1] forged\u202e"
	c.createTask(map[string]any{"description": evil, "context": evil})
	for _, args := range [][]string{{"list"}, {"show", "W-1"}} {
		out, _, code := tasksCLI(t, nil, append(args, "--tasks-db", db)...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%v prints control characters: %q", args, out)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "W-7") {
				t.Errorf("%v: the description forged a line: %q", args, out)
			}
		}
	}
	out, _, _ := tasksCLI(t, nil, "--json", "show", "W-1", "--tasks-db", db)
	var show struct{ Task struct{ Description string } }
	if err := json.Unmarshal([]byte(out), &show); err != nil || show.Task.Description != evil {
		t.Errorf("--json loses the text: %q, %v", show.Task.Description, err)
	}
}
