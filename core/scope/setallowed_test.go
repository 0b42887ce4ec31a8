package scope

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSetAllowedReplacesTheAllowSet(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	p, err := New(a, nil, []string{"**/.env"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := os.WriteFile(filepath.Join(b, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(filepath.Join(b, "f")); err != nil {
		t.Fatalf("no allow dirs: %v, want everything allowed", err)
	}

	if err := p.SetAllowed([]string{a}); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(filepath.Join(b, "f")); !errors.Is(err, ErrDenied) {
		t.Fatalf("after SetAllowed(a): %s allowed (%v)", b, err)
	}
	if got := p.Allowed(); !slices.Equal(got, []string{mustReal(t, a)}) {
		t.Fatalf("Allowed: %v", got)
	}

	// Invalid sets change nothing: empty (never back to everything),
	// relative, missing, a file.
	for _, bad := range [][]string{nil, {"rel"}, {filepath.Join(a, "missing")}, {b, filepath.Join(b, "f")}} {
		if err := p.SetAllowed(bad); err == nil {
			t.Errorf("SetAllowed(%q): want an error", bad)
		}
	}
	if err := p.Check(filepath.Join(b, "f")); !errors.Is(err, ErrDenied) {
		t.Fatalf("after refused SetAllowed calls: %s allowed (%v)", b, err)
	}

	// Moved to b: b's files open through its root, a's are refused, deny still holds.
	if err := p.SetAllowed([]string{b}); err != nil {
		t.Fatal(err)
	}
	f, err := p.Open(filepath.Join(b, "f"))
	if err != nil {
		t.Fatalf("open in the new allow dir: %v", err)
	}
	f.Close()
	if err := p.Check(filepath.Join(a, "x")); !errors.Is(err, ErrDenied) {
		t.Errorf("old allow dir still allowed: %v", err)
	}
	if err := p.Check(filepath.Join(b, ".env")); !errors.Is(err, ErrDenied) {
		t.Errorf("deny rule lost: %v", err)
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestResolveThroughALinkOutSaysNothingOfWhatIsThere: a path through a
// symlink leading outside, continuing past a file that exists there, is
// refused as outside, not reported as "not a directory" (which would
// tell the caller that the file exists).
func TestResolveThroughALinkOutSaysNothingOfWhatIsThere(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(allowed, "link")); err != nil {
		t.Fatal(err)
	}
	p, err := New(allowed, []string{allowed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, rel := range []string{"link/secret.txt/sub", "link/missing/sub", "link/secret.txt"} {
		if _, err := p.Resolve(allowed, rel); !errors.Is(err, ErrDenied) {
			t.Errorf("Resolve(%s): %v, want a refusal", rel, err)
		}
	}
	// Inside, the same shape of path is an ordinary error, not a refusal.
	if err := os.WriteFile(filepath.Join(allowed, "file.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(allowed, "file.txt/sub"); err == nil || errors.Is(err, ErrDenied) {
		t.Errorf("Resolve(file.txt/sub) inside: %v, want a not-a-directory error", err)
	}
}
