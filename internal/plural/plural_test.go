package plural

import "testing"

func TestN(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 files"}, {1, "1 file"}, {2, "2 files"}, {-1, "-1 file"}} {
		if got := S(tt.n, "file"); got != tt.want {
			t.Errorf("S(%d, file) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := N(3, "directory", "directories"); got != "3 directories" {
		t.Errorf("N(3, directory, directories) = %q, want 3 directories", got)
	}
}
