package dashboard

import (
	"fmt"
	"testing"
	"time"
)

// fakeSessions is a table of open cores.
type fakeSessions []Core

func (f fakeSessions) Count() int { return len(f) }
func (f fakeSessions) CountPrincipals() int {
	n := 0
	for _, c := range f {
		if c.Principal {
			n++
		}
	}
	return n
}
func (f fakeSessions) Cores() []Core { return f }

// TestOwnPlots: each principal's plots hold its own calls and cores only;
// the host's hold everyone's; past maxPlotted principals the one idle
// longest goes, so a flood of principals keeps the gateway's memory
// bounded.
func TestOwnPlots(t *testing.T) {
	o := NewObserver(fakeSessions{
		{ID: "a1", SubjectKey: "k\x00alice"}, {ID: "a2", SubjectKey: "k\x00alice", Principal: true},
		{ID: "b1", SubjectKey: "k\x00bob"}, {ID: "u", SubjectKey: ""},
	})
	o.ToolCall("a1", "alice", "k\x00alice", "bash", 300*time.Millisecond, "ok")
	o.ToolCall("a1", "alice", "k\x00alice", "bash", 100*time.Millisecond, "ok")
	o.ToolCall("b1", "bob", "k\x00bob", "bash", 5*time.Millisecond, "ok")
	o.countCores()
	now := time.Now()
	tests := []struct {
		name                       string
		series                     []dashSample
		calls, sessions, principal int
		p99AtLeastMS               float64
	}{
		{"alice", o.ownSeries("k\x00alice", now), 2, 1, 1, 297},
		{"bob", o.ownSeries("k\x00bob", now), 1, 1, 0, 4.9},
		{"host", o.hostSeries(now), 3, 3, 1, 297}, // nearest rank: of 5, 100 and 300 ms, the slowest
		{"nobody", o.ownSeries("k\x00carol", now), 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, sessions, principal, p99 := 0, 0, 0, 0.0
			for _, m := range tt.series {
				calls += m.Calls
				sessions, principal, p99 = max(sessions, m.Sessions), max(principal, m.PrincipalCores), max(p99, m.P99MS)
			}
			if calls != tt.calls || sessions != tt.sessions || principal != tt.principal || p99 < tt.p99AtLeastMS {
				t.Errorf("got %d calls, %d sessions, %d principal cores, p99 %v ms; want %d, %d, %d, p99 at least %v ms",
					calls, sessions, principal, p99, tt.calls, tt.sessions, tt.principal, tt.p99AtLeastMS)
			}
		})
	}

	for i := range maxPlotted + 50 {
		o.ToolCall("x", "flood", fmt.Sprintf("k\x00flood-%d", i), "bash", time.Millisecond, "ok")
	}
	if len(o.mine) != maxPlotted {
		t.Errorf("got %d principals plotted, want at most %d", len(o.mine), maxPlotted)
	}
	if len(o.ownSeries(fmt.Sprintf("k\x00flood-%d", maxPlotted+49), time.Now())) == 0 {
		t.Errorf("the latest principal's plots are gone, want the longest idle to go first")
	}
}
