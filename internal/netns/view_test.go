package netns

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViewGrants: a path an ancestor already grants as much as is left
// out, a writable one inside a read-only tree is kept, parents come first.
func TestViewGrants(t *testing.T) {
	tests := []struct {
		name string
		v    View
		want []grant
	}{
		{"read inside write is covered", View{Write: []string{"/w"}, Read: []string{"/w/r"}},
			[]grant{{"/w", true, true}}},
		{"write inside read is kept", View{Read: []string{"/usr"}, Write: []string{"/usr/local/w"}},
			[]grant{{"/usr", false, true}, {"/usr/local/w", true, true}}},
		{"a read file inside a writable tree is covered", View{Write: []string{"/home/a"}, ReadFiles: []string{"/home/a/.gitconfig"}},
			[]grant{{"/home/a", true, true}}},
		{"a read file outside is kept", View{Write: []string{"/work/a"}, ReadFiles: []string{"/home/a/.gitconfig"}},
			[]grant{{"/home/a/.gitconfig", false, false}, {"/work/a", true, true}}},
		{"a sibling with a common prefix is not inside", View{Read: []string{"/work/a"}, Write: []string{"/work/ab"}},
			[]grant{{"/work/a", false, true}, {"/work/ab", true, true}}},
		{"device files", View{Files: []string{"/dev/null"}, Write: []string{"/dev/shm"}},
			[]grant{{"/dev/null", true, false}, {"/dev/shm", true, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.v.grants(), cmp.AllowUnexported(grant{})); diff != "" {
				t.Errorf("grants (-want +got):\n%s", diff)
			}
		})
	}
}
