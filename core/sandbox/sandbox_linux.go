package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// selfExe re-executes the running binary, even if it was replaced or
// removed on disk since the core started.
const selfExe = "/proc/self/exe"

// abiVersion returns the kernel's Landlock ABI version, 0 when Landlock is
// unavailable, or the override from the environment.
func abiVersion(environ []string) int {
	for _, kv := range environ {
		if v, ok := cutPrefix(kv, abiOverrideEnv+"="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return n
			}
		}
	}
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// config is the newest Landlock configuration go-landlock knows, minus
// network rules (commands keep their network), downgraded by BestEffort to
// what the kernel offers.
var config = landlock.Config{
	HandledAccessFS: landlock.V11.HandledAccessFS,
	Scoped:          landlock.V11.Scoped,
}.BestEffort()

// tcpConfig is config plus TCP connect (ABI 4), for Spec.DenyTCP. Binding
// stays free: a server nobody can connect to harms no one.
var tcpConfig = landlock.Config{
	HandledAccessFS:  landlock.V11.HandledAccessFS,
	HandledAccessNet: landlock.AccessNetSet(llsys.AccessNetConnectTCP),
	Scoped:           landlock.V11.Scoped,
}.BestEffort()

// restrict confines this process (every thread) to spec. It also sets
// no_new_privs, so no setuid program can leave the domain.
func restrict(spec Spec) error { return restrictWith(spec, nil) }

// restrictWith is restrict, also granting a connection to each UNIX socket
// in sockets (restricted from Landlock ABI 9 on): the egress proxy's.
func restrictWith(spec Spec, sockets []string) error {
	rules := []landlock.Rule{
		landlock.RODirs(spec.Read...).IgnoreIfMissing(),
		landlock.ROFiles(spec.ReadFiles...).IgnoreIfMissing(),
		// Refer lets files move between writable directories (mv, go
		// build's cache); ResolveUnix lets commands use UNIX sockets their
		// own servers create there.
		landlock.RWDirs(spec.Write...).WithRefer().WithResolveUnix().IgnoreIfMissing(),
		landlock.RWFiles(spec.Files...).IgnoreIfMissing(),
		landlock.ROFiles(sockets...).WithResolveUnix().IgnoreIfMissing(),
	}
	cfg := config
	if spec.DenyTCP {
		cfg = tcpConfig
		for _, p := range spec.TCPPorts {
			rules = append(rules, landlock.ConnectTCP(uint16(p)))
		}
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// Securebits (linux/securebits.h): with NOROOT, uid 0 gains no
// capabilities at execve; the LOCKED bits make that permanent for the
// command and everything it starts.
const (
	secbitNoRoot                = 1 << 0
	secbitNoRootLocked          = 1 << 1
	secbitNoSetuidFixup         = 1 << 2
	secbitNoSetuidFixupLocked   = 1 << 3
	secbitKeepCapsLocked        = 1 << 5
	secbitNoCapAmbientRaise     = 1 << 6
	secbitNoCapAmbientRaiseLock = 1 << 7
)

// dropCapabilities leaves the calling thread, and the command it execs,
// without any capability, even when the core runs as root: no
// CAP_SYS_PTRACE to read other processes' /proc/PID/environ or mem (the
// gateway and cores are also non-dumpable), no CAP_KILL, CAP_SYS_ADMIN or
// CAP_DAC_OVERRIDE to go around what Landlock and file modes allow. As an
// ordinary user there is nothing to drop and the calls that need
// privilege are skipped. Capabilities are per thread: the caller locks
// its OS thread and execs from it.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 {
		return nil // nothing to drop
	}
	bits := secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLock
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("set securebits: %w", err)
	}
	for c := 0; ; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err == unix.EINVAL {
			break // past the last capability this kernel knows
		} else if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// NonDumpable makes the calling process non-dumpable: its /proc/PID
// files (environ, mem, fd, ...) are then open only to processes holding
// CAP_SYS_PTRACE, which no confined command has. The core and the gateway
// call it at start, as defence in depth beside Landlock's own ptrace rule.
// It does not pass across execve, so commands stay ordinary processes.
func NonDumpable() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

// execve replaces the helper with the command, looked up like a shell would.
func execve(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	err = syscall.Exec(path, argv, os.Environ())
	return errors.Join(fmt.Errorf("exec %s", path), err)
}
