package checkpoints

import (
	"testing"

	"github.com/mjkoo/boris/core/checkpoint"
)

func TestLastEdit(t *testing.T) {
	cp := func(id, tool, summary string) checkpoint.Checkpoint {
		return checkpoint.Checkpoint{ID: id, Tool: tool, Summary: summary}
	}
	for _, tc := range []struct {
		name string
		cps  []checkpoint.Checkpoint // newest first
		want string
	}{
		{"none", nil, ""},
		{"latest edit", []checkpoint.Checkpoint{cp("cp_3", "str_replace", "a.txt"), cp("cp_2", "create_file", "a.txt")}, "cp_3"},
		{"an outside change is passed over", []checkpoint.Checkpoint{cp("cp_4", "outside", "changes made outside Boris"), cp("cp_3", "str_replace", "a.txt")}, "cp_3"},
		{"undone edits are passed over", []checkpoint.Checkpoint{cp("cp_5", "undo", "undo cp_3 at a.txt"), cp("cp_3", "str_replace", "a.txt"), cp("cp_2", "create_file", "a.txt")}, "cp_2"},
		{"two undos walk back two edits", []checkpoint.Checkpoint{cp("cp_6", "undo", "undo cp_2 at a.txt"), cp("cp_5", "undo", "undo cp_3 at a.txt"), cp("cp_3", "str_replace", "a.txt"), cp("cp_2", "create_file", "a.txt")}, ""},
		{"a redone edit counts again", []checkpoint.Checkpoint{cp("cp_6", "undo", "undo cp_5"), cp("cp_5", "undo", "undo cp_3 at a.txt"), cp("cp_3", "str_replace", "a.txt"), cp("cp_2", "create_file", "a.txt")}, "cp_3"},
		{"a partial undo counts", []checkpoint.Checkpoint{cp("cp_5", "undo", "undo cp_3 (partly)"), cp("cp_3", "bash", "sed -i"), cp("cp_1", "insert", "a.txt")}, "cp_1"},
		{"the state the session found is no edit", []checkpoint.Checkpoint{cp("cp_1", "start", "the working tree as the session found it")}, ""},
		{"a bash change is an edit", []checkpoint.Checkpoint{cp("cp_3", "bash", "echo x > a.txt")}, "cp_3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if c := lastEdit(tc.cps); c != nil {
				got = c.ID
			}
			if got != tc.want {
				t.Errorf("lastEdit = %q, want %q", got, tc.want)
			}
		})
	}
}
