package sandbox

import (
	"errors"
	"fmt"
	"runtime"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A spawner that also starts extension tools keeps two Landlock domains:
// its own, which may write the extension area (see Sandbox.ExtDir), where
// extension tools start; and, on one thread of its own, a domain nested in
// it that may not, where every other command starts. Landlock lets a
// process trace, signal (ABI 6) and reach the abstract sockets of processes
// in its own domain or in domains nested in it, never in an enclosing one:
// so a command can neither write an extension call's files nor reach the
// extension tool through /proc, ptrace or pidfd_getfd, while the spawner
// still kills them all at the end.
//
// A spawner that also starts the checkpoints' git (GitDomain) may itself
// write the shadow repository, which neither commands nor extension tools
// may: each of the three then starts from a thread of its own, in a
// domain nested in the spawner's, and none can reach another's processes.
//
// go-landlock restricts every thread of a process at once; the nested
// domain must cover one thread alone, so its ruleset is built here with the
// raw system calls, for the access rights the kernel knows.

// Access rights (linux/landlock.h).
const (
	fsRead  = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	fsFile  = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev | llsys.AccessFSResolveUnix
	fsABI1  = llsys.AccessFSRefer - 1 // execute .. make_sym
	scopeV6 = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
)

// handledFS is every file-system access right of Landlock ABI abi.
func handledFS(abi int) uint64 {
	h := uint64(fsABI1)
	for _, r := range []struct {
		abi   int
		right uint64
	}{{2, llsys.AccessFSRefer}, {3, llsys.AccessFSTruncate}, {5, llsys.AccessFSIoctlDev}, {9, llsys.AccessFSResolveUnix}} {
		if abi >= r.abi {
			h |= r.right
		}
	}
	return h
}

// restrictThread confines the calling OS thread alone, and what it starts,
// to spec's files, nested in the process's domain, with signal and
// abstract socket scoping where the kernel has it, and with denyTCP, TCP
// connects but to spec.TCPPorts (ABI 4). The caller has locked its
// goroutine to the thread and never unlocks it.
func restrictThread(spec Spec, sockets []string, denyTCP bool) error {
	abi := abiVersion(nil)
	if abi < 1 {
		return errors.New("landlock is not available")
	}
	attr := llsys.RulesetAttr{HandledAccessFS: handledFS(abi)}
	if abi >= 6 {
		attr.Scoped = scopeV6
	}
	if denyTCP && abi >= 4 {
		attr.HandledAccessNet = llsys.AccessNetConnectTCP
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock: create the commands' ruleset: %w", err)
	}
	defer unix.Close(fd)
	h := attr.HandledAccessFS
	for _, g := range []struct {
		paths  []string
		access uint64
	}{
		{spec.Read, fsRead}, {spec.ReadFiles, llsys.AccessFSReadFile}, {spec.Write, h},
		{spec.Files, fsFile}, {sockets, llsys.AccessFSReadFile | llsys.AccessFSResolveUnix},
	} {
		for _, p := range g.paths {
			if err := addPathRule(fd, p, g.access&h); err != nil {
				return err
			}
		}
	}
	if attr.HandledAccessNet != 0 {
		for _, port := range spec.TCPPorts {
			if err := llsys.LandlockAddNetPortRule(fd, &llsys.NetPortAttr{AllowedAccess: llsys.AccessNetConnectTCP, Port: uint64(port)}, 0); err != nil {
				return fmt.Errorf("landlock: rule for TCP port %d: %w", port, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock: restrict the commands' thread: %w", err)
	}
	return nil
}

// addPathRule grants access beneath path; a file gets only the rights a
// file can have, and a missing path is skipped.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("landlock: open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fsFile
	}
	if err := llsys.LandlockAddPathBeneathRule(ruleset, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0); err != nil {
		return fmt.Errorf("landlock: rule for %s: %w", path, err)
	}
	return nil
}

// thread runs functions on one OS thread, set up once.
type thread struct{ jobs chan func() }

// startThread starts a goroutine locked to an OS thread of its own, runs
// setup there and, if it succeeds, runs each function given to do there.
// The goroutine never unlocks: the thread ends with it, never reused.
func startThread(setup func() error) (*thread, error) {
	t := &thread{jobs: make(chan func())}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := setup()
		errc <- err
		if err != nil {
			return
		}
		for f := range t.jobs {
			f()
		}
	}()
	return t, <-errc
}

// do runs f on the thread and returns once it has.
func (t *thread) do(f func()) {
	done := make(chan struct{})
	t.jobs <- func() {
		defer close(done)
		f()
	}
	<-done
}
