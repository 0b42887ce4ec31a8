package boris

import (
	"log/slog"
	"regexp"
	"testing"

	"github.com/mjkoo/boris/core/toolkit/tooltest"
)

// scenario is a sequence of calls to the toolset over a real client, in a
// directory holding files at first, and the files it leaves. In the
// steps, $TASK is the task_id the latest background bash returned.
type scenario struct {
	name  string
	opt   func(*Options)                 // changes the default options
	files map[string]string              // relative path: contents, written first
	setup func(t *testing.T, dir string) // anything files cannot say (links, modes)
	steps []tooltest.Step
	after map[string]string // relative path: contents after the last step (or tooltest.Absent)
}

// defaultOptions are the toolset's options as boris's defaults set them.
func defaultOptions() Options {
	return Options{MaxFileSize: 10 << 20, Timeout: 120, BackgroundTaskLimit: 10, Log: slog.New(slog.DiscardHandler)}
}

// taskID finds the task_id of a background bash's result.
var taskID = regexp.MustCompile(`task_id: (task_\S+)`)

// runScenarios runs each scenario in a directory of its own, denying
// **/.env as an operator's --deny would, and checks every step's result
// and the files it leaves.
func runScenarios(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			d := tooltest.New(t, "**/.env")
			dir := d.Dir() // the shell's, which a step's cd moves
			tooltest.WriteFiles(t, dir, sc.files)
			if sc.setup != nil {
				sc.setup(t, dir)
			}
			opt := defaultOptions()
			if sc.opt != nil {
				sc.opt(&opt)
			}
			r := tooltest.Runner{Client: tooltest.Connect(t, Tools(d, opt)), Dir: dir, Captures: map[string]*regexp.Regexp{"$TASK": taskID}}
			r.Run(t, sc.steps)
			tooltest.CheckFiles(t, dir, sc.after)
		})
	}
}
