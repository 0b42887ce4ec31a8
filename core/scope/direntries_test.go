package scope

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadDirEntriesLeavesOutDeniedEntries(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", ".env", "sub"} {
		if name == "sub" {
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	names := func(p *Policy) []string {
		t.Helper()
		entries, err := p.ReadDirEntries(mustReal(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			tag := "f"
			if e.IsDir() {
				tag = "d"
			}
			out = append(out, e.Name()+":"+tag)
		}
		return out
	}
	plain, err := New(dir, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if got, want := names(plain), []string{".env:f", "a.txt:f", "link:f", "sub:d"}; !slices.Equal(got, want) {
		t.Errorf("no deny rules: %v, want %v (a symlink is not followed)", got, want)
	}
	denying, err := New(dir, []string{dir}, []string{"**/.env", "sub"})
	if err != nil {
		t.Fatal(err)
	}
	defer denying.Close()
	if got, want := names(denying), []string{"a.txt:f", "link:f"}; !slices.Equal(got, want) {
		t.Errorf("with deny rules: %v, want %v", got, want)
	}
	if _, err := denying.ReadDirEntries(filepath.Join(mustReal(t, dir), "sub")); err == nil {
		t.Error("listing a denied directory: want an error")
	}
}
