package dashboard

import (
	"testing"
	"time"
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
