package core

import (
	"io"
	"testing"

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
