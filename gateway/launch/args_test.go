package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListFlag(t *testing.T) {
	env := []string{"BORIS_DISABLE_TOOLS=grep, glob", "OTHER=x"}
	tests := []struct {
		name string
		args []string
		add  []string
		want []string
	}{
		{"operator's env list is kept", nil, []string{"bash"},
			[]string{"--disable-tools", "grep", "--disable-tools", "glob", "--disable-tools", "bash"}},
		{"operator's flags win over env, and are kept", []string{"--disable-tools", "view"}, []string{"bash"},
			[]string{"--disable-tools", "view", "--disable-tools", "bash"}},
		{"=-form flags count", []string{"--disable-tools=view"}, []string{"bash"},
			[]string{"--disable-tools=view", "--disable-tools", "bash"}},
		{"nothing to add leaves args alone", []string{"--timeout", "5"}, nil, []string{"--timeout", "5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ListFlag(tt.args, env, "disable-tools", "BORIS_DISABLE_TOOLS", tt.add...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestListFlagBraces: the operator's BORIS_DENY_DIRS reaches the cores as
// the core reads it: a comma inside a brace pattern is not a separator.
func TestListFlagBraces(t *testing.T) {
	env := []string{"BORIS_DENY_DIRS=**/{.env,secrets}, **/*.pem"}
	got := ListFlag(nil, env, "deny-dir", "BORIS_DENY_DIRS", "/state")
	want := []string{"--deny-dir", "**/{.env,secrets}", "--deny-dir", "**/*.pem", "--deny-dir", "/state"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
