//go:build unix

package scope

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// promptly runs fn and fails the test if it has not returned within a few
// seconds: a file tool blocked on a FIFO never returns.
func promptly(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still blocked after 5s", what)
	}
}

// specialFixture makes a FIFO, a socket and a symlink to the FIFO in a
// fresh directory, and returns the directory.
func specialFixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Symlink("fifo", filepath.Join(dir, "tofifo")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestOpenSpecialFiles(t *testing.T) {
	dir := specialFixture(t)
	p := newPolicy(t, dir, nil, nil)
	tests := []struct{ name, abs, kind string }{
		{"fifo", filepath.Join(dir, "fifo"), "a FIFO (named pipe)"},
		// A link is not looked through before the open, so this one is
		// refused by the descriptor's type after a non-blocking open.
		{"symlink to fifo", filepath.Join(dir, "tofifo"), "a FIFO (named pipe)"},
		{"socket", filepath.Join(dir, "sock"), "a socket"},
		{"character device", "/dev/null", "a character device"},
		{"terminal multiplexer", "/dev/ptmx", "a character device"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Lstat(tc.abs); err != nil {
				t.Skipf("no %s on this system: %v", tc.abs, err)
			}
			var err error
			promptly(t, "Open", func() {
				var f *os.File
				if f, err = p.Open(tc.abs); err == nil {
					f.Close()
				}
			})
			if !errors.Is(err, ErrSpecialFile) {
				t.Fatalf("Open(%s): got %v, want an error wrapping ErrSpecialFile", tc.abs, err)
			}
			if !strings.Contains(err.Error(), tc.kind) || !strings.Contains(err.Error(), tc.abs) {
				t.Errorf("got message %q, want it to name %s and %q", err, tc.abs, tc.kind)
			}
		})
	}
}

// TestCheckOpened covers the check after the open, which catches a FIFO
// swapped in after the path was looked at. (That the file is then blocking
// is the opening's part: TestOpenStatIsBlocking.)
func TestCheckOpened(t *testing.T) {
	dir := specialFixture(t)
	fifo := filepath.Join(dir, "fifo")
	f, err := os.OpenFile(fifo, os.O_RDONLY|ReadFlags, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := checkOpened(f, fifo); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("checkOpened(FIFO): got %v, want ErrSpecialFile", err)
	}
	reg := filepath.Join(dir, "file")
	writeTestFile(t, reg, "x")
	g, err := os.OpenFile(reg, os.O_RDONLY|ReadFlags, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	fi, err := checkOpened(g, reg)
	if err != nil {
		t.Fatalf("checkOpened(regular file): got %v, want nil", err)
	}
	if fi.Size() != 1 || !fi.Mode().IsRegular() {
		t.Errorf("checkOpened(regular file): FileInfo size %d mode %v, want 1 and a regular file", fi.Size(), fi.Mode())
	}
}

// TestOpenStatIsBlocking: a file opened by the policy, by either way of
// opening (openat2 without symlinks, or the os.Root walk a symlink on the
// path leads to), reads as a blocking file and comes with its FileInfo.
func TestOpenStatIsBlocking(t *testing.T) {
	dir := specialFixture(t)
	writeTestFile(t, filepath.Join(dir, "real", "file"), "hello")
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	p := newPolicy(t, dir, nil, nil)
	for _, path := range []string{filepath.Join(dir, "real", "file"), filepath.Join(dir, "link", "file")} {
		f, fi, err := p.OpenStat(path)
		if err != nil {
			t.Fatalf("OpenStat(%s): %v", path, err)
		}
		if fi.Size() != 5 || !fi.Mode().IsRegular() {
			t.Errorf("OpenStat(%s): FileInfo size %d mode %v, want 5 and a regular file", path, fi.Size(), fi.Mode())
		}
		if nonblocking(t, f) {
			t.Errorf("OpenStat(%s): the file has O_NONBLOCK", path)
		}
		f.Close()
	}
	if _, _, err := p.OpenStat(filepath.Join(dir, "fifo")); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("OpenStat(FIFO): got %v, want ErrSpecialFile", err)
	}
}

// nonblocking reports whether f's descriptor has O_NONBLOCK.
func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return flags&syscall.O_NONBLOCK != 0
}

func TestWriteFileSpecialFiles(t *testing.T) {
	dir := specialFixture(t)
	p := newPolicy(t, dir, nil, nil)
	for _, name := range []string{"fifo", "sock"} {
		t.Run(name, func(t *testing.T) {
			abs := filepath.Join(dir, name)
			var err error
			promptly(t, "WriteFile", func() { err = p.WriteFile(abs, []byte("x"), 0o644) })
			if !errors.Is(err, ErrSpecialFile) {
				t.Fatalf("WriteFile(%s): got %v, want ErrSpecialFile", name, err)
			}
			if fi, err := os.Lstat(abs); err != nil || fi.Mode().IsRegular() {
				t.Errorf("%s was replaced: %v %v", name, fi.Mode(), err)
			}
		})
	}
}

// TestOpenThroughSymlink checks the way Open takes when the path holds a
// symlink (the direct open refuses it): through os.Root, with the real
// path re-checked.
func TestOpenThroughSymlink(t *testing.T) {
	f := newFixture(t)
	if got, want := readAll(t, f.p, f.a("linkin")), "content of allowed/sub/file.txt"; got != want {
		t.Errorf("Open through an allowed symlink: got %q, want %q", got, want)
	}
	fh, err := f.p.Open(f.a("tosecret"))
	if err == nil {
		fh.Close()
	}
	wantDenied(t, err, "")
}
