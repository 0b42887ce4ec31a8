//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRefusesHostilePaths plants what a hostile tenant would at each path
// Boris opens: a link to a file elsewhere, a link on the way, a FIFO.
// Every open is refused promptly, and nothing outside is read or written.
func TestRefusesHostilePaths(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(base, "state", "info"), 0o700))
	must(t, os.Symlink(victim, filepath.Join(base, "state", "info", "attributes")))
	must(t, os.Symlink(outside, filepath.Join(base, "state", "objects")))
	must(t, syscall.Mkfifo(filepath.Join(base, "state", "fifo"), 0o600))

	d, err := OpenDir(base, "state", false, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, tc := range []struct {
		name string
		want error
	}{
		{"info/attributes", ErrLink},
		{"objects/victim", ErrLink},
		{"fifo", ErrNotRegular},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := d.ReadFile(tc.name, 0); !errors.Is(err, tc.want) {
				t.Errorf("ReadFile(%s): got %v, want %v", tc.name, err, tc.want)
			}
			if f, err := d.OpenFile(tc.name, os.O_WRONLY|os.O_TRUNC, 0); !errors.Is(err, tc.want) {
				t.Errorf("OpenFile(%s, write): got %v, want %v", tc.name, err, tc.want)
				if f != nil {
					f.Close()
				}
			}
		})
	}
	// WriteFile replaces a planted link instead of writing through it.
	must(t, d.WriteFile("info/attributes", []byte("* -filter\n"), 0o600))
	if got, _ := os.ReadFile(victim); string(got) != "secret" {
		t.Errorf("victim = %q after WriteFile over a link to it, want it untouched", got)
	}
	if fi, err := os.Lstat(filepath.Join(base, "state", "info", "attributes")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("info/attributes after WriteFile: %v, %v; want a regular file", fi, err)
	}
	if err := d.WriteFile("objects/x", []byte("x"), 0o600); !errors.Is(err, ErrLink) {
		t.Errorf("WriteFile through a linked directory: got %v, want %v", err, ErrLink)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("WriteFile wrote through a linked directory")
	}
	// A link at the directory itself is refused too.
	must(t, os.Symlink(outside, filepath.Join(base, "linked")))
	if _, err := OpenDir(base, "linked/sub", true, 0o700); !errors.Is(err, ErrLink) {
		t.Errorf("OpenDir through a link: got %v, want %v", err, ErrLink)
	}
	if _, err := os.Stat(filepath.Join(outside, "sub")); err == nil {
		t.Error("OpenDir created a directory through a link")
	}
}

// TestSwappedLink swaps a link in and out of a path while it is opened:
// an open either gets the regular file or fails, never the link's target.
func TestSwappedLink(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "f"), []byte("outside"), 0o600))
	d, err := OpenDir(base, "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := filepath.Join(base, "f")
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(p)
			_ = os.WriteFile(p, []byte("inside"), 0o600)
			_ = os.Remove(p)
			_ = os.Symlink(filepath.Join(outside, "f"), p)
		}
	}()
	for range 2000 {
		if data, err := d.ReadFile("f", 0); err == nil && string(data) == "outside" {
			t.Fatal("read the link's target")
		}
	}
	close(stop)
	<-done
}

func TestCreateAndRead(t *testing.T) {
	base := t.TempDir()
	d, err := OpenDir(base, "a/b", true, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	must(t, d.WriteFile("seq", []byte("7\n"), 0o600))
	got, err := d.ReadFile("seq", 10)
	if err != nil || string(got) != "7\n" {
		t.Fatalf("ReadFile = %q, %v; want \"7\\n\"", got, err)
	}
	if _, err := d.ReadFile("seq", 1); err == nil {
		t.Error("ReadFile over its limit: got no error")
	}
	must(t, d.Remove("seq"))
	must(t, d.Remove("seq")) // missing: not an error
	if _, err := d.ReadFile("seq", 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile after Remove: got %v, want not exist", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAppendKeepsAppending: a file opened with O_APPEND is written at its
// end every time (the open's non-blocking flag is cleared, not the rest).
func TestAppendKeepsAppending(t *testing.T) {
	d, err := OpenDir(t.TempDir(), "", true, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, line := range []string{"one\n", "two\n"} {
		f, err := d.OpenFile("log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString(line)
		must(t, err)
		must(t, f.Close())
	}
	if got, err := d.ReadFile("log", 0); err != nil || string(got) != "one\ntwo\n" {
		t.Errorf("after two appends: %q, %v; want \"one\\ntwo\\n\"", got, err)
	}
}

// TestOverwrite: in place, shorter or longer, and created when missing;
// a link planted at the name is refused, not written through.
func TestOverwrite(t *testing.T) {
	base := t.TempDir()
	d, err := OpenDir(base, "", true, 0o700)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, data := range []string{"12345\n", "7\n", "123456789\n"} {
		must(t, d.Overwrite("n", []byte(data), 0o600))
		if got, err := d.ReadFile("n", 0); err != nil || string(got) != data {
			t.Errorf("after Overwrite(%q): %q, %v", data, got, err)
		}
	}
	target := filepath.Join(t.TempDir(), "target")
	must(t, os.WriteFile(target, []byte("keep"), 0o600))
	must(t, os.Symlink(target, filepath.Join(base, "link")))
	if err := d.Overwrite("link", []byte("x"), 0o600); err == nil {
		t.Error("Overwrite through a link: got no error")
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the link's target: %q, want keep", got)
	}
}

// TestRemoveAllFollowsNoLink: removing a tree that holds links to
// directories and files outside removes the links, never what they name;
// a missing name is no error.
func TestRemoveAllFollowsNoLink(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("keep"), 0o600))
	d, err := OpenDir(base, "", false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sub, name, err := d.MkdirTemp("call-", 0o700)
	if err != nil {
		t.Fatal(err)
	}
	sub.Close()
	tree := filepath.Join(base, name)
	must(t, os.MkdirAll(filepath.Join(tree, "a", "b"), 0o700))
	must(t, os.WriteFile(filepath.Join(tree, "a", "b", "f"), nil, 0o600))
	must(t, os.Symlink(outside, filepath.Join(tree, "a", "dirlink")))
	must(t, os.Symlink(filepath.Join(outside, "keep"), filepath.Join(tree, "filelink")))
	must(t, os.Symlink(outside, filepath.Join(base, "top")))
	for _, n := range []string{name, "top", "missing"} {
		if err := d.RemoveAll(n); err != nil {
			t.Fatalf("RemoveAll(%q): %v", n, err)
		}
	}
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Errorf("base after RemoveAll: got %d entries, want none", len(entries))
	}
	if data, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(data) != "keep" {
		t.Errorf("the file a link named: got %q, %v; want it untouched", data, err)
	}
	for _, bad := range []string{"", "..", "a/b", "/etc"} {
		if err := d.RemoveAll(bad); err == nil {
			t.Errorf("RemoveAll(%q): got nil, want refused", bad)
		}
	}
}
