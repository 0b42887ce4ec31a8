package search

import "testing"

func TestFooter(t *testing.T) {
	tests := []struct {
		s    Skipped
		want string
	}{
		{Skipped{}, "[Skipped: none]"},
		{Skipped{Binary: 12, Ignored: 340, TooLarge: 1, Denied: 2}, "[Skipped: 12 binary, 340 ignored by .gitignore, 1 over 10MB, 2 denied by path scoping]"},
		{Skipped{GitDirs: 2, SymlinkDirs: 3, Special: 2, Unreadable: 4},
			"[Skipped: 4 unreadable, 2 .git directories, 3 symlinked directories (not followed), 2 special files (FIFOs, sockets or devices)]"},
	}
	for _, tt := range tests {
		if got := tt.s.Footer("10MB"); got != tt.want {
			t.Errorf("Footer(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
