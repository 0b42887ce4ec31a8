package dashboard

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mjkoo/boris/core/board"
)

// TestCoreViewIdle: a core is idle since its last request only when no
// call of its runs; during a long call (a 5 s bash) it is not "idle 5s".
func TestCoreViewIdle(t *testing.T) {
	now := time.Now()
	core := Core{ID: "0123456789abcdef", Created: now.Add(-time.Minute), LastActive: now.Add(-5 * time.Second)}
	tests := []struct {
		name  string
		calls []inflightCall
		want  float64
	}{
		{"no call running", nil, 5},
		{"a call running since the last request", []inflightCall{{Tool: "bash", Started: now.Add(-5 * time.Second)}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := coreView(core, tt.calls, now).IdleSeconds; got != tt.want {
				t.Errorf("idle_seconds: got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestColumns: a board's tasks go to the column of their status, in the
// board's order; a blocked task is marked with those of its blockers that
// are open; counts are the board's, listed or not.
func TestColumns(t *testing.T) {
	tasks := []board.Task{
		{ID: "W-1", Status: board.Done},
		{ID: "W-2", Status: board.InProgress, Ready: true},
		{ID: "W-3", Status: board.Pending, BlockedBy: []string{"W-1", "W-2"}},
		{ID: "W-4", Status: board.Pending, BlockedBy: []string{"W-1"}, Ready: true},
		{ID: "W-5", Status: board.Cancelled, BlockedBy: []string{"W-2"}},
	}
	b := dashBoard{Counts: map[string]int{"pending": 7, "in_progress": 1, "done": 1, "cancelled": 1}, Tasks: cards(tasks)}
	var got []string
	for _, c := range b.Columns() {
		col := fmt.Sprintf("%s(%d):", c.Status, c.Count)
		for _, task := range c.Tasks {
			col += " " + task.ID
			if task.Blocked {
				col += "[blocked by " + strings.Join(task.OpenBlockers, ",") + "]"
			}
		}
		got = append(got, col)
	}
	want := []string{"pending(7): W-3[blocked by W-2] W-4", "in_progress(1): W-2", "done(1): W-1", "cancelled(1): W-5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}
