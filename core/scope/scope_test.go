package scope

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture is a temporary tree:
//
//	tmp/outside/secret.txt            never reachable
//	tmp/allowed/                      the allow dir and base
//	  sub/file.txt, work/file.txt
//	  .env, sub/.env                  denied by "**/.env"
//	  secrets/key.txt                 denied by "**/secrets/**"
//	  denied/plain.txt                denied by plain entry "denied"
//	  dir with space/a b.txt          allowed
//	  dir with space/no peek/x.txt    denied by plain entry "dir with space/no peek"
//	  ünïcødé/файл.txt                allowed
//	  機密/文書.txt                      denied by "**/機密/**"
//	  linkout -> tmp/outside          absolute symlink leaving the allow dir
//	  linkfile -> tmp/outside/secret.txt
//	  dangling -> tmp/outside/new.txt
//	  linkin -> sub/file.txt          symlink staying inside
//	  danglingin -> sub/new.txt
//	  tosecret -> secrets/key.txt     symlink into a denied dir
//	  denied/door -> ../sub/file.txt  symlink inside a denied dir to an allowed file
type fixture struct {
	tmp, allowed, outside string
	p                     *Policy
}

var fixtureDeny = []string{"**/.env", "**/secrets/**", "denied", "dir with space/no peek", "**/機密/**"}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{tmp: tmp, allowed: filepath.Join(tmp, "allowed"), outside: filepath.Join(tmp, "outside")}
	for _, name := range []string{
		"outside/secret.txt", "allowed/sub/file.txt", "allowed/work/file.txt",
		"allowed/.env", "allowed/sub/.env", "allowed/secrets/key.txt", "allowed/denied/plain.txt",
		"allowed/dir with space/a b.txt", "allowed/dir with space/no peek/x.txt",
		"allowed/ünïcødé/файл.txt", "allowed/機密/文書.txt",
	} {
		writeTestFile(t, filepath.Join(tmp, name), "content of "+name)
	}
	links := map[string]string{
		"linkout":     f.outside,
		"linkfile":    filepath.Join(f.outside, "secret.txt"),
		"dangling":    filepath.Join(f.outside, "new.txt"),
		"linkin":      "sub/file.txt",
		"danglingin":  "sub/new.txt",
		"tosecret":    "secrets/key.txt",
		"denied/door": "../sub/file.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.allowed, name)); err != nil {
			t.Fatal(err)
		}
	}
	f.p = newPolicy(t, f.allowed, []string{f.allowed}, fixtureDeny)
	return f
}

func newPolicy(t *testing.T, base string, allow, deny []string) *Policy {
	t.Helper()
	p, err := New(base, allow, deny)
	if err != nil {
		t.Fatalf("New: got error %v, want nil", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) a(rel string) string { return filepath.Join(f.allowed, rel) }

// entry describes one file-system object for before/after comparisons.
type entry struct {
	Mode  fs.FileMode
	MTime time.Time
	Data  string // sha256 of a regular file, target of a symlink
}

// snapshot records every object under root without following symlinks, so
// any change or creation "outside" shows up in a diff.
func snapshot(t *testing.T, root string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		e := entry{Mode: fi.Mode(), MTime: fi.ModTime()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Data, err = os.Readlink(path)
		case fi.Mode().IsRegular():
			var b []byte
			b, err = os.ReadFile(path)
			e.Data = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[path] = e
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// untouched snapshots the places a refused operation must not touch and
// returns a function asserting they are unchanged.
func (f *fixture) untouched(t *testing.T) func() {
	t.Helper()
	dirs := []string{f.outside, f.a("secrets"), f.a("denied"), f.a("機密"), f.a("dir with space/no peek")}
	before := map[string]map[string]entry{}
	for _, d := range dirs {
		before[d] = snapshot(t, d)
	}
	envs := map[string]string{}
	for _, e := range []string{".env", "sub/.env"} {
		b, _ := os.ReadFile(f.a(e))
		envs[e] = string(b)
	}
	return func() {
		t.Helper()
		for _, d := range dirs {
			if diff := cmp.Diff(before[d], snapshot(t, d)); diff != "" {
				t.Errorf("%s changed (-before +after):\n%s", d, diff)
			}
		}
		for e, want := range envs {
			if got, _ := os.ReadFile(f.a(e)); string(got) != want {
				t.Errorf("%s: got content %q, want %q", e, got, want)
			}
		}
	}
}

func wantDenied(t *testing.T, err error, wantMsg string) {
	t.Helper()
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("got error %v, want one wrapping ErrDenied", err)
	}
	if wantMsg != "" && !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("got message %q, want it to contain %q", err.Error(), wantMsg)
	}
}

func TestNew(t *testing.T) {
	tmp := t.TempDir()
	writeTestFile(t, filepath.Join(tmp, "file"), "x")
	tests := []struct {
		name        string
		allow, deny []string
		wantErr     string // substring; "" = success
	}{
		{"no rules", nil, nil, ""},
		{"relative allow", []string{"."}, []string{"**/.env", "/etc/**", "build/*.key", "plain"}, ""},
		{"missing allow dir", []string{"nope"}, nil, `"nope"`},
		{"allow is a file", []string{"file"}, nil, `"file": not a directory`},
		{"empty allow", []string{""}, nil, "empty allow"},
		{"bad pattern", nil, []string{"**/[abc"}, `"**/[abc"`},
		{"empty deny", nil, []string{""}, "empty deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tmp, tc.allow, tc.deny)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want nil", err)
				}
				p.Close()
				return
			}
			if err == nil {
				p.Close()
				t.Fatalf("got nil error, want one containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got error %q, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestAllowedDenied(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(tmp, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(tmp, "alias")); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, tmp, []string{"alias"}, []string{"**/.env", "x"})
	if diff := cmp.Diff([]string{filepath.Join(tmp, "real")}, p.Allowed()); diff != "" {
		t.Errorf("Allowed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"**/.env", "x"}, p.Denied()); diff != "" {
		t.Errorf("Denied (-want +got):\n%s", diff)
	}
	open := newPolicy(t, tmp, nil, nil)
	if got := open.Allowed(); got != nil {
		t.Errorf("Allowed with no allow dirs: got %v, want nil", got)
	}
	// The lexical spelling of a symlinked allow dir is accepted too.
	got, err := p.Resolve(filepath.Join(tmp, "alias"), "f.txt")
	if err != nil || got != filepath.Join(tmp, "real", "f.txt") {
		t.Errorf("Resolve via alias: got %q, %v; want %q, nil", got, err, filepath.Join(tmp, "real", "f.txt"))
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: got %v, want nil", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: got %v, want nil", err)
	}
}

func TestResolveAllowed(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, cwd, path, want string
	}{
		{"relative to cwd", f.allowed, "sub/file.txt", f.a("sub/file.txt")},
		{"relative to sub cwd", f.a("sub"), "file.txt", f.a("sub/file.txt")},
		{"dot dot inside", f.a("sub"), "../work/./file.txt", f.a("work/file.txt")},
		{"absolute", "/", f.a("work/file.txt"), f.a("work/file.txt")},
		{"allow dir itself", f.allowed, ".", f.allowed},
		{"new file", f.allowed, "new.txt", f.a("new.txt")},
		{"new file in new dirs", f.allowed, "x/y/z.txt", f.a("x/y/z.txt")},
		{"spaces", f.allowed, "dir with space/a b.txt", f.a("dir with space/a b.txt")},
		{"unicode", f.allowed, "ünïcødé/файл.txt", f.a("ünïcødé/файл.txt")},
		{"symlink inside", f.allowed, "linkin", f.a("sub/file.txt")},
		{"dangling symlink inside", f.allowed, "danglingin", f.a("sub/new.txt")},
		{"similar name to .env", f.allowed, "sub/.env.example", f.a("sub/.env.example")},
		{"similar name to denied", f.allowed, "denied2/x", f.a("denied2/x")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := f.p.Resolve(tc.cwd, tc.path)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolveRefused(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name, cwd, path, wantMsg string
	}{
		{"dot dot to etc", f.a("sub"), "../../etc/passwd", "outside allowed directories"},
		{"deep dot dot", f.a("sub"), "../../../../../../../../etc/passwd", "outside allowed directories"},
		{"sub dot dot outside", f.allowed, "sub/../../outside/secret.txt", "outside allowed directories"},
		{"absolute outside", f.allowed, filepath.Join(f.outside, "secret.txt"), "outside allowed directories"},
		{"etc passwd", f.allowed, "/etc/passwd", "outside allowed directories"},
		{"parent of allow dir", f.allowed, "..", "outside allowed directories"},
		{"cwd outside", f.outside, "secret.txt", "outside allowed directories"},
		{"symlink dir out", f.allowed, "linkout/secret.txt", "resolves to " + f.outside},
		{"symlink dir out new file", f.allowed, "linkout/new/file.txt", "outside allowed directories"},
		{"symlink file out", f.allowed, "linkfile", "outside allowed directories"},
		{"dangling symlink out", f.allowed, "dangling", "outside allowed directories"},
		{".env", f.allowed, ".env", `matches deny rule "**/.env"`},
		{"nested .env", f.a("sub"), ".env", `matches deny rule "**/.env"`},
		{"new .env", f.allowed, "x/.env", `matches deny rule "**/.env"`},
		{"secrets file", f.allowed, "secrets/key.txt", `"**/secrets/**"`},
		{"secrets dir", f.allowed, "secrets", `"**/secrets/**"`},
		{"nested secrets", f.allowed, "sub/secrets/new", `"**/secrets/**"`},
		{"plain deny", f.allowed, "denied/plain.txt", `matches deny rule "denied"`},
		{"plain deny dir", f.allowed, "denied", `matches deny rule "denied"`},
		{"symlink into denied", f.allowed, "tosecret", `"**/secrets/**"`},
		{"symlink in denied dir to allowed file", f.allowed, "denied/door", `matches deny rule "denied"`},
		{"dot dot back into denied", f.a("sub"), "../denied/plain.txt", `"denied"`},
		{"space deny", f.allowed, "dir with space/no peek/x.txt", `"dir with space/no peek"`},
		{"unicode deny", f.allowed, "機密/文書.txt", `"**/機密/**"`},
		{"unicode deny new", f.a("ünïcødé"), "機密/новый.txt", `"**/機密/**"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := f.untouched(t)
			got, err := f.p.Resolve(tc.cwd, tc.path)
			if err == nil {
				t.Fatalf("got %q, nil; want ErrDenied", got)
			}
			wantDenied(t, err, tc.wantMsg)
			check()
		})
	}
}

func TestResolveEmptyPath(t *testing.T) {
	f := newFixture(t)
	_, err := f.p.Resolve(f.allowed, "")
	if err == nil || errors.Is(err, ErrDenied) {
		t.Fatalf("got %v, want a non-ErrDenied error", err)
	}
	if !strings.Contains(err.Error(), "path is required") {
		t.Errorf("got %q, want it to mention %q", err, "path is required")
	}
}

func TestResolveDanglingLoop(t *testing.T) {
	f := newFixture(t)
	for _, pair := range [][2]string{{"loopa", "loopb"}, {"loopb", "loopa"}} {
		if err := os.Symlink(pair[1], f.a(pair[0])); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := f.p.Resolve(f.allowed, "loopa"); err == nil {
		t.Errorf("got %q, nil; want a symlink-loop error", got)
	}
}

func TestCheck(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		path       string
		wantDenied bool
	}{
		{f.a("sub/file.txt"), false},
		{f.a("secrets/key.txt"), true},
		{f.a("sub/.env"), true},
		{f.a("denied"), true},
		{f.a("sub/../denied/x"), true},
		{filepath.Join(f.outside, "secret.txt"), true},
		{"relative/path", true},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			err := f.p.Check(tc.path)
			if got := errors.Is(err, ErrDenied); got != tc.wantDenied {
				t.Errorf("got denied=%v (%v), want %v", got, err, tc.wantDenied)
			}
		})
	}
}

func TestDenyPatterns(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, base, nil, []string{"/etc/**", "build/*.key", "**/.env", "{a,b}[0-9]/*.pem"})
	tests := []struct {
		path       string
		wantDenied bool
	}{
		{"/etc/passwd", true},
		{"/etc", true},
		{"/etcetera/x", false},
		{filepath.Join(base, "build/a.key"), true},
		{filepath.Join(base, "other/build/a.key"), false},
		{filepath.Join(base, "build/a.txt"), false},
		{"/build/a.key", false},
		{"/var/x/.env", true},
		{"/var/x/.env/inner", true},
		{filepath.Join(base, "a1/x.pem"), true},
		{filepath.Join(base, "c1/x.pem"), false},
		{"/usr/bin/env", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			err := p.Check(tc.path)
			if got := errors.Is(err, ErrDenied); got != tc.wantDenied {
				t.Errorf("got denied=%v (%v), want %v", got, err, tc.wantDenied)
			}
		})
	}
}

func TestDenyBeatsAllow(t *testing.T) {
	f := newFixture(t)
	// Allowing the denied directory explicitly does not lift the deny.
	p := newPolicy(t, f.allowed, []string{f.allowed, f.a("secrets"), f.a("denied")}, fixtureDeny)
	for _, rel := range []string{"secrets/key.txt", "denied/plain.txt"} {
		t.Run(rel, func(t *testing.T) {
			check := f.untouched(t)
			_, err := p.Resolve(f.allowed, rel)
			wantDenied(t, err, "matches deny rule")
			_, err = p.Open(f.a(rel))
			wantDenied(t, err, "matches deny rule")
			wantDenied(t, p.WriteFile(f.a(rel), []byte("pwned"), 0o644), "matches deny rule")
			check()
		})
	}
}

func readAll(t *testing.T, p *Policy, abs string) string {
	t.Helper()
	fh, err := p.Open(abs)
	if err != nil {
		t.Fatalf("Open(%q): got error %v, want nil", abs, err)
	}
	defer fh.Close()
	b, err := io.ReadAll(fh)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpen(t *testing.T) {
	f := newFixture(t)
	for _, rel := range []string{"sub/file.txt", "dir with space/a b.txt", "ünïcødé/файл.txt"} {
		t.Run(rel, func(t *testing.T) {
			abs, err := f.p.Resolve(f.allowed, rel)
			if err != nil {
				t.Fatalf("Resolve: got %v, want nil", err)
			}
			if got, want := readAll(t, f.p, abs), "content of allowed/"+rel; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		d, err := f.p.Open(f.a("sub"))
		if err != nil {
			t.Fatalf("got %v, want nil", err)
		}
		defer d.Close()
		names, err := d.Readdirnames(-1)
		if err != nil || len(names) != 2 {
			t.Errorf("got names %v, %v; want 2 entries", names, err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		_, err := f.p.Open(f.a("missing.txt"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("got %v, want fs.ErrNotExist", err)
		}
		if !strings.Contains(err.Error(), f.a("missing.txt")) {
			t.Errorf("got %q, want it to name the absolute path", err)
		}
	})
}

func TestOpenRefused(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ name, abs string }{
		{"outside", filepath.Join(f.outside, "secret.txt")},
		{"through dir symlink", f.a("linkout/secret.txt")},
		{"file symlink out", f.a("linkfile")},
		{"denied", f.a("secrets/key.txt")},
		{"symlink into denied", f.a("tosecret")},
		{"symlink in denied dir", f.a("denied/door")},
		{"lexical dot dot", f.a("sub/../../outside/secret.txt")},
		{"relative", "sub/file.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := f.untouched(t)
			fh, err := f.p.Open(tc.abs)
			if err == nil {
				fh.Close()
				t.Fatal("got nil error, want ErrDenied")
			}
			wantDenied(t, err, "")
			check()
		})
	}
}

func TestReadlink(t *testing.T) {
	f := newFixture(t)
	got, err := f.p.Readlink(f.a("linkin"))
	if err != nil || got != "sub/file.txt" {
		t.Errorf("got %q, %v; want %q, nil", got, err, "sub/file.txt")
	}
	// Reading where a link points is harmless even when it points outside.
	got, err = f.p.Readlink(f.a("linkout"))
	if err != nil || got != f.outside {
		t.Errorf("got %q, %v; want %q, nil", got, err, f.outside)
	}
	_, err = f.p.Readlink(f.a("denied/door"))
	wantDenied(t, err, `"denied"`)
	_, err = f.p.Readlink(f.a("linkout/secret.txt"))
	wantDenied(t, err, "")
}

func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestWriteFileNewInNewDirs(t *testing.T) {
	f := newFixture(t)
	check := f.untouched(t)
	before := snapshot(t, f.allowed)
	abs, err := f.p.Resolve(f.a("sub"), "../new dir/ü/deep.txt")
	if err != nil {
		t.Fatalf("Resolve: got %v, want nil", err)
	}
	if err := f.p.WriteFile(abs, []byte("hello"), 0o640); err != nil {
		t.Fatalf("WriteFile: got %v, want nil", err)
	}
	if got := readAll(t, f.p, abs); got != "hello" {
		t.Errorf("content: got %q, want %q", got, "hello")
	}
	if got := fileMode(t, abs); got != 0o640 {
		t.Errorf("mode: got %v, want %v", got, fs.FileMode(0o640))
	}
	after := snapshot(t, f.allowed)
	var created []string
	for path := range after {
		if _, ok := before[path]; !ok {
			created = append(created, path)
		}
	}
	slices.Sort(created)
	want := []string{f.a("new dir"), f.a("new dir/ü"), abs}
	if diff := cmp.Diff(want, created); diff != "" {
		t.Errorf("created entries (-want +got):\n%s", diff)
	}
	if got := fileMode(t, f.a("new dir")); got != fs.ModeDir|0o755 {
		t.Errorf("new dir mode: got %v, want %v", got, fs.ModeDir|0o755)
	}
	check()
}

func TestWriteFileModes(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name     string
		existing fs.FileMode // 0 = no existing file
		perm     fs.FileMode
		want     fs.FileMode
	}{
		{"preserves 0750", 0o750, 0o644, 0o750},
		{"preserves 0600", 0o600, 0o644, 0o600},
		{"new uses perm 0640", 0, 0o640, 0o640},
		{"new uses perm 0600", 0, 0o600, 0o600},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			abs := f.a(fmt.Sprintf("mode%d.txt", i))
			if tc.existing != 0 {
				writeTestFile(t, abs, "old")
				if err := os.Chmod(abs, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.p.WriteFile(abs, []byte("new"), tc.perm); err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if got := fileMode(t, abs); got != tc.want {
				t.Errorf("mode: got %v, want %v", got, tc.want)
			}
			if got, _ := os.ReadFile(abs); string(got) != "new" {
				t.Errorf("content: got %q, want %q", got, "new")
			}
		})
	}
}

// tempLeftovers lists files that look like WriteFile temporaries.
func tempLeftovers(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for path := range snapshot(t, root) {
		if strings.Contains(filepath.Base(path), ".boris-") {
			out = append(out, path)
		}
	}
	return out
}

func TestWriteFileFailures(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		abs  string
	}{
		{"target is a directory", f.a("sub")},
		{"target is the allow dir", f.allowed},
		{"parent is a file", f.a("sub/file.txt/x.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := f.p.WriteFile(tc.abs, []byte("x"), 0o644)
			if err == nil {
				t.Fatal("got nil error, want one")
			}
			if errors.Is(err, ErrDenied) {
				t.Errorf("got %v, want a non-ErrDenied error", err)
			}
			if got := tempLeftovers(t, f.tmp); len(got) != 0 {
				t.Errorf("temp files left: %v", got)
			}
		})
	}
	t.Run("rename fails", func(t *testing.T) {
		abs := f.a("work/racy.txt")
		p := newPolicy(t, f.allowed, []string{f.allowed}, fixtureDeny)
		p.beforeRename = func() {
			// A directory appearing at the target makes the rename fail.
			if err := os.Mkdir(abs, 0o755); err != nil {
				t.Error(err)
			}
		}
		if err := p.WriteFile(abs, []byte("x"), 0o644); err == nil {
			t.Fatal("got nil error, want a rename failure")
		}
		if got := tempLeftovers(t, f.tmp); len(got) != 0 {
			t.Errorf("temp files left: %v", got)
		}
	})
}

func TestWriteFileRefused(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ name, abs string }{
		{"outside", filepath.Join(f.outside, "secret.txt")},
		{"outside new", filepath.Join(f.outside, "new.txt")},
		{"through dir symlink", f.a("linkout/secret.txt")},
		{"through dir symlink new", f.a("linkout/x/new.txt")},
		{"file symlink out", f.a("linkfile")},
		{"dangling symlink out", f.a("dangling")},
		{".env", f.a(".env")},
		{"nested .env", f.a("sub/.env")},
		{"new .env", f.a("fresh/.env")},
		{"secrets", f.a("secrets/key.txt")},
		{"new secrets dir", f.a("sub/secrets/new.txt")},
		{"plain deny", f.a("denied/new.txt")},
		{"symlink into denied", f.a("tosecret")},
		{"symlink in denied dir", f.a("denied/door")},
		{"space deny", f.a("dir with space/no peek/x.txt")},
		{"unicode deny", f.a("機密/文書.txt")},
		{"lexical dot dot", f.a("sub/../../outside/secret.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := f.untouched(t)
			before := snapshot(t, f.allowed)
			wantDenied(t, f.p.WriteFile(tc.abs, []byte("pwned"), 0o644), "")
			check()
			if diff := cmp.Diff(before, snapshot(t, f.allowed)); diff != "" {
				t.Errorf("allowed tree changed (-before +after):\n%s", diff)
			}
		})
	}
}

// swap replaces dir with a symlink to target, simulating an attacker acting
// between Resolve and Open/WriteFile.
func swap(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.Rename(dir, dir+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

func TestSwapRace(t *testing.T) {
	tests := []struct {
		name    string
		target  func(f *fixture) string
		prepare func(t *testing.T, f *fixture) // plant a same-named file where the link leads
	}{
		{"absolute to outside", func(f *fixture) string { return f.outside }, nil},
		{"relative to outside", func(f *fixture) string { return "../outside" }, nil},
		{"relative into denied", func(f *fixture) string { return "secrets" }, nil},
		{"absolute into denied", func(f *fixture) string { return f.a("secrets") }, nil},
		{"relative into unicode deny", func(f *fixture) string { return "機密" }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			// Same-named files wherever the swapped link can lead, so a
			// successful redirect would find something to read or clobber.
			for _, d := range []string{f.outside, f.a("secrets"), f.a("機密")} {
				writeTestFile(t, filepath.Join(d, "file.txt"), "precious")
			}
			read, err := f.p.Resolve(f.allowed, "work/file.txt")
			if err != nil {
				t.Fatalf("Resolve: got %v, want nil", err)
			}
			create, err := f.p.Resolve(f.allowed, "work/deep/new.txt")
			if err != nil {
				t.Fatalf("Resolve: got %v, want nil", err)
			}
			check := f.untouched(t)
			swap(t, f.a("work"), tc.target(f))

			fh, err := f.p.Open(read)
			if err == nil {
				fh.Close()
			}
			wantDenied(t, err, "")
			wantDenied(t, f.p.WriteFile(read, []byte("pwned"), 0o644), "")
			wantDenied(t, f.p.WriteFile(create, []byte("pwned"), 0o644), "")
			check()
			if got := tempLeftovers(t, f.tmp); len(got) != 0 {
				t.Errorf("temp files left: %v", got)
			}
		})
	}
}

// TestSwapRaceNoAllowDirs covers the "/" root used without --allow-dir: the
// swap stays inside that root, so only the post-open real-path check and
// the per-directory check in WriteFile stand in the way.
func TestSwapRaceNoAllowDirs(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f.allowed, nil, fixtureDeny)
	writeTestFile(t, f.a("secrets/file.txt"), "precious")
	read, err := p.Resolve(f.allowed, "work/file.txt")
	if err != nil {
		t.Fatalf("Resolve: got %v, want nil", err)
	}
	if got := readAll(t, p, read); got != "content of allowed/work/file.txt" {
		t.Fatalf("before swap: got %q", got)
	}
	check := f.untouched(t)
	swap(t, f.a("work"), "secrets")
	fh, err := p.Open(read)
	if err == nil {
		fh.Close()
	}
	wantDenied(t, err, `"**/secrets/**"`)
	wantDenied(t, p.WriteFile(read, []byte("pwned"), 0o644), `"**/secrets/**"`)
	wantDenied(t, p.WriteFile(f.a("work/deep/new.txt"), []byte("pwned"), 0o644), `"**/secrets/**"`)
	check()
}

func TestConcurrent(t *testing.T) {
	f := newFixture(t)
	const workers, rounds = 16, 20
	shared := f.a("shared.txt")
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*4)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := f.a(fmt.Sprintf("c/%d/own.txt", w))
			for r := range rounds {
				data := []byte(fmt.Sprintf("worker %d round %d", w, r))
				errs <- f.p.WriteFile(own, data, 0o644)
				errs <- f.p.WriteFile(shared, data, 0o644)
				if fh, err := f.p.Open(own); err != nil {
					errs <- err
				} else {
					_, err := io.ReadAll(fh)
					fh.Close()
					errs <- err
				}
				_, err := f.p.Resolve(f.allowed, "secrets/key.txt")
				if !errors.Is(err, ErrDenied) {
					errs <- fmt.Errorf("concurrent Resolve of denied path: got %v, want ErrDenied", err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got, _ := os.ReadFile(shared); !strings.HasPrefix(string(got), "worker ") {
		t.Errorf("shared content: got %q, want one worker's write", got)
	}
	if got := tempLeftovers(t, f.tmp); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
}

// TestSwapRaceFilePattern swaps a directory to a link into a directory that
// is itself allowed but whose files match a deny pattern: only re-checking
// the full real path of the target (not just its directory) catches it.
func TestSwapRaceFilePattern(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f.allowed, []string{f.allowed}, []string{"keys/*.pem"})
	writeTestFile(t, f.a("work/id.pem"), "public")
	writeTestFile(t, f.a("keys/id.pem"), "private")
	read, err := p.Resolve(f.allowed, "work/id.pem")
	if err != nil {
		t.Fatalf("Resolve: got %v, want nil", err)
	}
	keys := snapshot(t, f.a("keys"))
	swap(t, f.a("work"), "keys")
	fh, err := p.Open(read)
	if err == nil {
		fh.Close()
	}
	wantDenied(t, err, `"keys/*.pem"`)
	wantDenied(t, p.WriteFile(read, []byte("pwned"), 0o644), `"keys/*.pem"`)
	wantDenied(t, p.WriteFile(f.a("work/new.pem"), []byte("pwned"), 0o644), `"keys/*.pem"`)
	if diff := cmp.Diff(keys, snapshot(t, f.a("keys"))); diff != "" {
		t.Errorf("keys changed (-before +after):\n%s", diff)
	}
}

// TestIsEscape pins the os.Root error text isEscape relies on, so a change
// in a future Go release is noticed here rather than silently weakening the
// mapping to ErrDenied.
func TestIsEscape(t *testing.T) {
	f := newFixture(t)
	r, err := os.OpenRoot(f.allowed)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"linkout/secret.txt", "../outside/secret.txt", "linkfile"} {
		t.Run(name, func(t *testing.T) {
			_, err := r.Open(name)
			if !isEscape(err) {
				t.Errorf("got isEscape(%v) = false, want true", err)
			}
		})
	}
	if isEscape(fs.ErrNotExist) {
		t.Error("got isEscape(fs.ErrNotExist) = true, want false")
	}
}

// TestIsTemp: the name a write gives its temporary file is one IsTemp
// knows (read from the directory while the write runs), and names a user
// might give a file are not.
func TestIsTemp(t *testing.T) {
	f := newFixture(t)
	abs := f.a("work/named.txt")
	p := newPolicy(t, f.allowed, []string{f.allowed}, fixtureDeny)
	var seen []string
	p.beforeRename = func() {
		ents, err := os.ReadDir(filepath.Dir(abs))
		if err != nil {
			t.Error(err)
		}
		for _, e := range ents {
			seen = append(seen, e.Name())
		}
	}
	if err := p.WriteFile(abs, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var temps []string
	for _, name := range seen {
		if IsTemp(name) {
			temps = append(temps, name)
		}
	}
	if len(temps) != 1 || !strings.HasPrefix(temps[0], ".named.txt.") {
		t.Errorf("temporary files IsTemp knows among %q: %q, want the one of named.txt", seen, temps)
	} else if target, _ := TempTarget(temps[0]); target != "named.txt" {
		t.Errorf("TempTarget(%q) = %q, want named.txt", temps[0], target)
	}
	if target, ok := TempTarget("..x.boris-ABCDEFGHIJKL.boris-ABCDEFGHIJKL.tmp"); !ok || target != ".x.boris-ABCDEFGHIJKL" {
		t.Errorf("TempTarget of a temporary file of a temporary file's name: %q, %v", target, ok)
	}
	for _, name := range []string{
		"named.txt", ".named.txt", "x.tmp", ".boris-ABCDEFGHIJKL.tmp",
		".a.boris-ABCDEFGHIJK.tmp", ".a.boris-ABCDEFGHIJKLM.tmp", ".a.boris-abcdefghijkl.tmp",
		".a.boris-ABCDEFGHIJ18.tmp", "a.boris-ABCDEFGHIJKL.tmp", ".a.boris-ABCDEFGHIJKL.tmp.txt",
	} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true, want false", name)
		}
	}
}
