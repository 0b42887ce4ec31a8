package boris

import (
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestInstructions: the toolset's line speaks of editing only when an
// editing tool is registered and of background tasks only when bash and
// task_output both are.
func TestInstructions(t *testing.T) {
	bash, output := toolkit.Tool{Name: Bash, Exec: true}, toolkit.Tool{Name: taskOutputTool.Name, Exec: true}
	for _, tt := range []struct {
		name       string
		registered toolkit.Registered
		edit, long bool
	}{
		{"nothing", nil, false, false},
		{"str_replace", toolkit.Registered{{Name: strReplaceTool.Name}}, true, false},
		{"editor", toolkit.Registered{{Name: editorBare.name}}, true, false},
		{"editor 20250728", toolkit.Registered{{Name: editor20250728.name}}, true, false},
		{"view only", toolkit.Registered{{Name: viewTool.Name}}, false, false},
		{"bash without task_output", toolkit.Registered{bash}, false, false},
		{"task_output without bash", toolkit.Registered{output}, false, false},
		{"everything", toolkit.Registered{bash, output, {Name: strReplaceTool.Name}}, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Instructions(tt.registered)
			if edit := strings.Contains(got, "View a file before editing it"); edit != tt.edit {
				t.Errorf("speaks of editing: %v, want %v: %q", edit, tt.edit, got)
			}
			if long := strings.Contains(got, "run_in_background"); long != tt.long {
				t.Errorf("speaks of background tasks: %v, want %v: %q", long, tt.long, got)
			}
		})
	}
}
