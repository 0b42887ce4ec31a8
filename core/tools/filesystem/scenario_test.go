package filesystem

import (
	"context"
	"testing"

	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/toolkit/tooltest"
	"github.com/mjkoo/boris/internal/flagenv"
)

// scenario is a sequence of calls to the filesystem tools over a real
// client, in a directory holding files at first, and the files it
// leaves.
type scenario struct {
	name string
	// workspace turns workspaces on and makes the workspace "demo", in
	// $DIR/workspaces/demo.
	workspace bool
	maxSize   int                            // --max-file-size; 0 for 10MB
	files     map[string]string              // relative path: contents, written first
	setup     func(t *testing.T, dir string) // anything files cannot say (links, modes)
	steps     []tooltest.Step
	after     map[string]string // relative path: contents after the last step (or tooltest.Absent)
}

// runScenarios runs each scenario in a directory of its own, denying
// **/.env as an operator's --deny would, with the session's record of
// what it read (which edit_file's misses consult).
func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			d := tooltest.New(t, "**/.env")
			dir := d.Dir()
			opt := Options{MaxFileSize: 10 << 20, Seen: seen.New()}
			if sc.maxSize != 0 {
				opt.MaxFileSize = flagenv.Size(sc.maxSize)
			}
			if sc.workspace {
				d.WithWorkspaces(t)
				opt.Workspaces = true
				if _, err := d.Workspaces().Root.Create(context.Background(), "demo"); err != nil {
					t.Fatalf("create the workspace: %v", err)
				}
			}
			tooltest.WriteFiles(t, dir, sc.files)
			if sc.setup != nil {
				sc.setup(t, dir)
			}
			r := tooltest.Runner{Client: tooltest.Connect(t, Tools(d, opt)), Dir: dir}
			r.Run(t, sc.steps)
			tooltest.CheckFiles(t, dir, sc.after)
		})
	}
}
