package checkpoints

import (
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestInstructions: the toolset's line is there only with history, and
// counts commands' changes only when a tool runs them.
func TestInstructions(t *testing.T) {
	history := toolkit.Tool{Name: historyTool.Name}
	for _, tt := range []struct {
		name       string
		registered toolkit.Registered
		want       string // "" = no line
	}{
		{"without history", toolkit.Registered{{Name: "bash", Exec: true}, {Name: diffTool.Name}}, ""},
		{"history", toolkit.Registered{history}, "Every change made through these tools is recorded as a checkpoint"},
		{"history and bash", toolkit.Registered{history, {Name: "bash", Exec: true}}, "Every change made through these tools (bash included, within the working tree) is recorded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Instructions(tt.registered)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
