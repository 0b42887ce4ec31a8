package reaper

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/procstat"
)

func setSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("reaper: PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}

// child is one child process of this process.
type child struct {
	pid    int
	zombie bool
}

// children lists this process's children, from every thread's children
// file (a child's parent is the thread that forked it, or any thread of a
// subreaper it was re-parented to), or by scanning /proc where the kernel
// lacks those files.
func children() []child {
	pids := childPids()
	out := make([]child, 0, len(pids))
	for _, pid := range pids {
		if c, ok := readChild(pid); ok {
			out = append(out, c)
		}
	}
	return out
}

// childPids lists the pids of this process's children, without reading
// their state.
func childPids() []int {
	pids, ok := threadChildren()
	if !ok {
		pids = scanChildren()
	}
	return pids
}

// readChild reads the state of child pid; false once it is gone.
func readChild(pid int) (child, bool) {
	st, _, ok := stat(pid)
	return child{pid: pid, zombie: st == 'Z'}, ok
}

// threadChildren reads every thread's children file, by name: a glob
// of /proc/self/task/*/children would list each thread's directory, which
// makes the kernel build (and, as the process ends, tear down) an entry
// for each of its fifty-odd files, for every thread, at every sweep.
func threadChildren() ([]int, bool) {
	tasks, _ := os.ReadDir("/proc/self/task")
	var pids []int
	found := false
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join("/proc/self/task", t.Name(), "children"))
		if err != nil {
			continue
		}
		found = true
		for _, field := range strings.Fields(string(data)) {
			if pid, err := strconv.Atoi(field); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, found
}

// noChildren reports whether this process has no child at all, running
// or dead and not yet waited for, as the kernel keeps them (waitid with
// WNOWAIT, which reaps nothing: own children keep their status for Wait).
func noChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return errors.Is(err, unix.ECHILD)
}

func scanChildren() []int {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := stat(pid); ok && ppid == self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stat reads the state and parent pid of process pid.
func stat(pid int) (state byte, ppid int, ok bool) {
	st, err := procstat.Read(pid)
	return st.State, st.PPID, err == nil
}
