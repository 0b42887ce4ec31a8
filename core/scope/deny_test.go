package scope

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDenyPatternMatrix is the deny-pattern matrix (issue 10, item 6):
// every way of writing a rule that a path would be cleaned from denies what
// it obviously means, and nothing else.
func TestDenyPatternMatrix(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(base)
	b := func(rel string) string { return filepath.Join(base, rel) }
	tests := []struct {
		entry        string
		denied, kept []string
	}{
		{"secret/*", []string{b("secret/a"), b("secret/a/b")}, []string{b("secret"), b("other/a"), "/secret/a"}},
		{"./secret/*", []string{b("secret/a"), b("secret/a/b")}, []string{b("secret"), b("other/a"), "/secret/a"}},
		{"secret//*", []string{b("secret/a")}, []string{b("secret"), b("other/a")}},
		{"secret/*/", []string{b("secret/a")}, []string{b("secret"), b("other/a")}},
		{"sub/../secret/*", []string{b("secret/a")}, []string{b("sub/secret/a"), b("sub/a")}},
		{"./sub/./../secret/*.key", []string{b("secret/a.key")}, []string{b("secret/a.txt")}},
		{"../" + filepath.Base(base) + "/secret/*", []string{b("secret/a")}, []string{b("other/a")}},
		{"../sibling/*.pem", []string{filepath.Join(parent, "sibling/x.pem")}, []string{b("sibling/x.pem")}},
		{"**/.env", []string{b(".env"), b("x/.env"), "/elsewhere/.env", b("x/.env/inner")}, []string{b("x/.envrc")}},
		{"./**/.env", []string{b(".env"), b("x/y/.env")}, []string{"/elsewhere/.env", b("x/.envrc")}},
		{base + "/./secret/*", []string{b("secret/a")}, []string{b("other/a")}},
		{base + "//secret/../keys/*", []string{b("keys/a")}, []string{b("secret/a")}},
		{"/etc/./ssl/**", []string{"/etc/ssl/x/y", "/etc/ssl"}, []string{"/etc/sslx"}},
		{"{a/b,c}/*.pem", []string{b("a/b/x.pem"), b("c/x.pem")}, []string{b("a/x.pem"), b("b/x.pem")}},
		{"sub/{x,y}[0-9]/*", []string{b("sub/x1/f")}, []string{b("sub/z1/f")}},
		// Plain paths are cleaned by filepath.Join; the same spellings hold.
		{"./plain", []string{b("plain"), b("plain/x")}, []string{b("plainer")}},
		{"sub/../plain", []string{b("plain/x")}, []string{b("sub/plain")}},
		{base + "/./plain/", []string{b("plain/x")}, []string{b("sub/plain")}},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			p := newPolicy(t, base, nil, []string{tc.entry})
			for _, path := range tc.denied {
				if err := p.Check(path); !errors.Is(err, ErrDenied) {
					t.Errorf("Check(%s): got %v, want denied", path, err)
				}
			}
			for _, path := range tc.kept {
				if err := p.Check(path); err != nil {
					t.Errorf("Check(%s): got %v, want allowed", path, err)
				}
			}
		})
	}
}

// TestDenyPatternNeverMatches checks that a deny entry which can never
// match anything is refused when the policy is built, with a message
// saying why.
func TestDenyPatternNeverMatches(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", strings.Count(base, string(filepath.Separator))+1)
	tests := []struct{ entry, wantMsg string }{
		{"", "empty deny entry"},
		{"  ", "empty deny entry"},
		{"/../secret/*", `leads above "/"`},
		{up + "secret/*", `leads above "/"`},
		{up + "plain", `leads above "/"`},
		{"**/../x", `after the wildcard "**"`},
		{"*/../x/*", `after the wildcard "*"`},
		{"/*/..", `after the wildcard "*"`},
		{"[", "invalid deny pattern"},
	}
	for _, tc := range tests {
		t.Run(tc.entry, func(t *testing.T) {
			p, err := New(base, nil, []string{tc.entry})
			if err == nil {
				p.Close()
				t.Fatalf("New with deny %q: got nil error, want one", tc.entry)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("got %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

// TestProtectCoversLinkTarget: a protected path that is a symlink is
// refused by either spelling, with Protect's reason, and so is a path
// protected after the policy has decided on others.
func TestProtectCoversLinkTarget(t *testing.T) {
	f := newFixture(t)
	state := filepath.Join(f.tmp, "state")
	writeTestFile(t, filepath.Join(state, "db"), "x")
	link := f.a("statelink")
	if err := os.Symlink(state, link); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, f.allowed, nil, nil)
	if err := p.Protect("Boris's own state", link); err != nil {
		t.Fatal(err)
	}
	late := f.a("linkout") // -> outside
	for _, tc := range []struct {
		name, path string
		protect    string // protected just before the check
	}{
		{"link", filepath.Join(link, "db"), ""},
		{"target", filepath.Join(state, "db"), ""},
		{"protected late", filepath.Join(f.outside, "secret.txt"), late},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.protect != "" {
				if err := p.Protect("Boris's own state", tc.protect); err != nil {
					t.Fatal(err)
				}
			}
			wantDenied(t, p.Check(tc.path), "Boris's own state")
		})
	}
}
