package core

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/core/board"
)

// TestTasksDBDefault: --tasks-db's default is the board's, resolved
// against $HOME, and the CLI uses the same place.
func TestTasksDBDefault(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"default", nil, []string{"HOME=/home/ann"}, "/home/ann/.boris/boris.db"},
		{"no HOME: left for the first use to report", nil, nil, board.DefaultPath},
		{"env", nil, []string{"HOME=/home/ann", "BORIS_TASKS_DB=/srv/team.db"}, "/srv/team.db"},
		{"flag beats env", []string{"--tasks-db", "~/x.db"}, []string{"HOME=/h", "BORIS_TASKS_DB=/srv/team.db"}, "/h/x.db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig(tc.args, tc.environ, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.TasksDB != tc.want {
				t.Errorf("TasksDB = %q, want %q", cfg.TasksDB, tc.want)
			}
		})
	}
}

func TestBoardExcludes(t *testing.T) {
	for _, tc := range []struct {
		tree, db string
		want     []string
	}{
		{"/w", "/w/.boris/boris.db", []string{"/.boris/boris.db", "/.boris/boris.db-wal", "/.boris/boris.db-shm", "/.boris/boris.db-journal"}},
		{"/w", "/home/ann/.boris/boris.db", nil},
		{"/w", "/wx/boris.db", nil},
		{"/w", "~/.boris/boris.db", nil},
		{"/w", "/w/odd [1]*?.db", []string{`/odd\ \[1\]\*\?.db`, `/odd\ \[1\]\*\?.db-wal`, `/odd\ \[1\]\*\?.db-shm`, `/odd\ \[1\]\*\?.db-journal`}},
	} {
		if diff := cmp.Diff(tc.want, boardExcludes(tc.tree, tc.db)); diff != "" {
			t.Errorf("boardExcludes(%q, %q) (-want +got):\n%s", tc.tree, tc.db, diff)
		}
	}
}

// TestBoardExcludesThroughASymlink: the tree's path has its symlinks
// resolved; a board reached through a link into it is still excluded.
func TestBoardExcludesThroughASymlink(t *testing.T) {
	tree, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "home")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	got := boardExcludes(tree, filepath.Join(link, ".boris", "boris.db"))
	if len(got) == 0 || got[0] != "/.boris/boris.db" {
		t.Errorf("boardExcludes through a link = %v, want /.boris/boris.db first", got)
	}
}
