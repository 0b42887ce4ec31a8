package stdin

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockingPipe returns a pipe whose ends are blocking, as a parent's
// exec hands them to a child, wrapped as the child's os.Stdin would be.
func blockingPipe(t *testing.T) (r *os.File, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "/dev/stdin"), os.NewFile(uintptr(fds[1]), "pipe")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// nonblocking reports whether f's open file description has O_NONBLOCK.
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
	return flags&unix.O_NONBLOCK != 0
}

// TestPollableReopensPipe: a pipe is read through a new, non-blocking
// description of the same pipe, and the one boris was given keeps its
// blocking mode, which a process sharing it relies on.
func TestPollableReopensPipe(t *testing.T) {
	r, w := blockingPipe(t)
	p := Pollable(r)
	if p == r {
		t.Fatal("Pollable returned the pipe it was given")
	}
	defer p.Close()
	if !nonblocking(t, p) {
		t.Error("the reopened pipe is blocking")
	}
	if nonblocking(t, r) {
		t.Error("the given pipe's description became non-blocking")
	}
	if _, err := w.Write([]byte("one message\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := p.Read(buf)
	if err != nil || string(buf[:n]) != "one message\n" {
		t.Fatalf("Read = %q, %v; want the message written", buf[:n], err)
	}
	w.Close()
	if n, err := p.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("Read after the writer closed = %d, %v; want EOF", n, err)
	}
}

// TestPollableCloseEndsRead: the reopened pipe is in the poller, so
// closing it ends a read in progress. A blocking descriptor's read would
// go on until a message came.
func TestPollableCloseEndsRead(t *testing.T) {
	r, _ := blockingPipe(t)
	p := Pollable(r)
	if p == r {
		t.Fatal("Pollable returned the pipe it was given")
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the read start waiting
	p.Close()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Fatalf("Read = %v; want os.ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the read: the pipe is not in the poller")
	}
}

// TestPollableLeavesOthers: a socket pair and a regular file come back
// unchanged, the socket's mode untouched.
func TestPollableLeavesOthers(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sock := os.NewFile(uintptr(fds[0]), "/dev/stdin")
	defer sock.Close()
	defer unix.Close(fds[1])
	if p := Pollable(sock); p != sock {
		t.Error("a socket was reopened")
	}
	if nonblocking(t, sock) {
		t.Error("the socket became non-blocking")
	}
	file, err := os.Create(filepath.Join(t.TempDir(), "input"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if p := Pollable(file); p != file {
		t.Error("a regular file was reopened")
	}
}
