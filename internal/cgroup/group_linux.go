package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killTimeout bounds how long Kill waits for the processes of a group to
// exit after cgroup.kill. SIGKILL cannot be caught, so only a process
// stuck in the kernel (uninterruptible I/O) takes longer than a moment.
const killTimeout = 5 * time.Second

// Group is the cgroup of one session. Its methods are safe for concurrent
// use.
type Group struct {
	m    *Manager
	path string

	mu sync.Mutex
	fd int // -1 once removed
}

func newGroup(m *Manager, path string, l Limits) (*Group, error) {
	if err := os.Mkdir(path, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: create session group: %w", err)
	}
	fd := -1
	err := writeLimits(path, l)
	if err == nil {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			err = fmt.Errorf("cgroup: open session group %s: %w", path, err)
		}
	}
	if err != nil {
		_ = unix.Rmdir(path)
		return nil, err
	}
	return &Group{m: m, path: path, fd: fd}, nil
}

// writeLimits writes l into the interface files of the group at dir.
func writeLimits(dir string, l Limits) error {
	var files [][2]string
	if l.PidsMax > 0 {
		files = append(files, [2]string{"pids.max", strconv.FormatInt(l.PidsMax, 10)})
	}
	if l.MemoryMax > 0 {
		files = append(files, [2]string{"memory.max", strconv.FormatInt(l.MemoryMax, 10)})
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			files = append(files, [2]string{"memory.swap.max", "0"})
		}
	}
	if l.CPUWeight > 0 {
		files = append(files, [2]string{"cpu.weight", strconv.Itoa(l.CPUWeight)})
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f[0]), f[1]); err != nil {
			return fmt.Errorf("cgroup: set limit %s=%s in %s: %w", f[0], f[1], dir, err)
		}
	}
	return nil
}

// FD returns a descriptor of the group's directory, for
// syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}. It is valid until
// Kill, and -1 after; do not call Kill while a process is being started
// with it.
func (g *Group) FD() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fd
}

// ApplyTo makes a process started with attr begin inside the group: it
// sets UseCgroupFD and CgroupFD (clone3 with CLONE_INTO_CGROUP). Those
// fields exist on Linux only; elsewhere ApplyTo compiles and does nothing.
// The caveat of FD holds.
func (g *Group) ApplyTo(attr *syscall.SysProcAttr) {
	attr.UseCgroupFD, attr.CgroupFD = true, g.FD()
}

// Path returns the group's directory.
func (g *Group) Path() string { return g.path }

// Procs lists the processes in the group (cgroup.procs), not those of
// any child groups.
func (g *Group) Procs() ([]int, error) {
	pids, err := readPids(filepath.Join(g.path, "cgroup.procs"))
	if err != nil {
		return nil, fmt.Errorf("cgroup: list processes: %w", err)
	}
	return pids, nil
}

// Kill SIGKILLs every process in the group and in any groups below it
// (cgroup.kill), waits up to 5 s for them to exit, then removes the group
// and closes its descriptor. Processes forked while the kill is under way
// die as well. Kill is idempotent: once the group is gone it returns nil;
// after a failure, calling it again retries.
//
// Kill does not reap: the caller still waits for the processes it started
// (the core). The others are re-parented and reaped as any orphan is.
func (g *Group) Kill() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fd < 0 {
		return nil
	}
	if err := kill(g.path); err != nil {
		return err
	}
	_ = unix.Close(g.fd)
	g.fd = -1
	g.m.forget(g)
	return nil
}

// kill kills the processes of the group at dir and removes it and the
// groups below it. A group already gone is not an error.
func kill(dir string) error {
	err := writeFile(filepath.Join(dir, "cgroup.kill"), "1")
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("cgroup: kill %s: %w", dir, err)
	}
	deadline := time.Now().Add(killTimeout)
	if err := waitEmpty(dir, deadline); err != nil {
		return fmt.Errorf("cgroup: kill %s: %w", dir, err)
	}
	if err := removeTree(dir, deadline); err != nil {
		return fmt.Errorf("cgroup: remove %s: %w", dir, err)
	}
	return nil
}

// waitEmpty waits until cgroup.events of dir reads "populated 0": no
// process is left in the group or below it. The kernel signals a change
// of the file to poll(2) as POLLPRI, once it has been read.
func waitEmpty(dir string, deadline time.Time) error {
	fd, err := unix.Open(filepath.Join(dir, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open cgroup.events: %w", err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 256)
	for {
		n, err := unix.Pread(fd, buf, 0)
		if err != nil {
			return fmt.Errorf("read cgroup.events: %w", err)
		}
		if populated(string(buf[:n])) == "0" {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			pids, _ := readPids(filepath.Join(dir, "cgroup.procs"))
			return fmt.Errorf("processes still running %s after SIGKILL: %v", killTimeout, pids)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("poll cgroup.events: %w", err)
		}
	}
}

// populated returns the value of the "populated" key of cgroup.events.
func populated(events string) string {
	for line := range strings.Lines(events) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "populated "); ok {
			return v
		}
	}
	return ""
}

// removeTree removes the group at dir and the groups below it, deepest
// first. A group's directory can be removed as soon as it holds no
// process and no group, whatever interface files it shows. The kernel may
// still be finishing the exit of the last process for a moment after
// "populated 0", so EBUSY is retried until deadline.
func removeTree(dir string, deadline time.Time) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name()), deadline); err != nil {
				return err
			}
		}
	}
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

// writeFile writes s to an existing cgroup interface file in one write(2),
// as the kernel wants.
func writeFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readPids reads a cgroup.procs file: one pid a line.
func readPids(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: bad pid %q", path, f)
		}
		pids = append(pids, pid)
	}
	return pids, nil
}

// readFields reads a file of space-separated words, like cgroup.controllers.
func readFields(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(data)), nil
}
