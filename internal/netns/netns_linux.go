package netns

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// cloneFlags are the namespaces every session gets.
const cloneFlags = unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWNS

// Attr makes the process attr starts be born in new PID, network, IPC and
// mount namespaces, with a user namespace of its own when this process
// lacks CAP_SYS_ADMIN (see the package comment). It reports whether it
// added the user namespace.
func Attr(attr *syscall.SysProcAttr) (userns bool) {
	attr.Cloneflags |= cloneFlags
	if hasSysAdmin() {
		return false
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= unix.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	// The uid stays what it was, so execve would drop the capabilities
	// the clone gave in the new user namespace: these three survive it,
	// for Setup (mounts, the loopback) and for dropping them all after.
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	return true
}

// hasSysAdmin reports whether this process holds CAP_SYS_ADMIN: it may
// then make the namespaces without a user namespace.
func hasSysAdmin() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) != 0
}

// Setup runs in the process Attr started, before anything else: it keeps
// its mounts from propagating back to the host, mounts a /proc of its own
// PID namespace (so commands see only their session's processes, and
// /proc/net is the session's network) and an empty /dev/shm, and brings
// the loopback of its network namespace up (it starts down).
func Setup() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make / a slave mount: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount a private /proc: %w", err)
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("shm", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("mount a private /dev/shm: %w", err)
		}
	}
	return loopbackUp()
}

// loopbackUp sets IFF_UP on lo: one SIOCSIFFLAGS ioctl, which is all
// netlink would be asked for here; the kernel gives lo its 127.0.0.1/8
// and ::1 by itself.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	return nil
}

// Available is a quick check, made at every core start, that the kernel
// and its settings let this process make the namespaces: it reads a few
// files, forks nothing. Probe is the real test. The error wraps
// ErrUnavailable and says what is missing.
func Available(environ []string) error {
	for _, kv := range environ {
		if kv == DisableEnv+"=off" {
			return fmt.Errorf("%w: turned off by %s=off", ErrUnavailable, DisableEnv)
		}
	}
	for _, ns := range []string{"pid", "net", "ipc", "mnt"} {
		if _, err := os.Stat("/proc/self/ns/" + ns); err != nil {
			return fmt.Errorf("%w: the kernel has no %s namespaces", ErrUnavailable, ns)
		}
	}
	if err := mountAPI(); err != nil {
		return err
	}
	if hasSysAdmin() {
		return nil
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return fmt.Errorf("%w: not root, and the kernel has no user namespaces", ErrUnavailable)
	}
	checks := []struct {
		file string
		bad  func(int) bool
		why  string
	}{
		{"/proc/sys/user/max_user_namespaces", func(v int) bool { return v == 0 }, "user namespaces are disabled (user.max_user_namespaces = 0)"},
		{"/proc/sys/kernel/unprivileged_userns_clone", func(v int) bool { return v == 0 }, "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", func(v int) bool { return v != 0 }, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)"},
	}
	for _, c := range checks {
		if v, ok := readInt(c.file); ok && c.bad(v) {
			return fmt.Errorf("%w: not root, and %s", ErrUnavailable, c.why)
		}
	}
	return nil
}

func readInt(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return v, err == nil
}

// Probe starts argv in the namespaces and waits for it: the real test of
// what Available guesses. argv should run Setup and exit 0 (the boris
// binary has a mode for it). The error wraps ErrUnavailable and carries
// what argv wrote on stderr.
func Probe(environ []string, argv ...string) error {
	if err := Available(environ); err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	Attr(cmd.SysProcAttr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%w: %s", ErrUnavailable, msg)
	}
	return nil
}

// OpenHostProc opens the /proc mounted for the PID namespace this process
// was born in, before Setup covers it with the new namespace's: through it
// HostPid reads pids as the parent's namespace numbers them. The
// descriptor is O_PATH and close-on-exec.
func OpenHostProc() (int, error) {
	fd, err := unix.Open("/proc", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the host's /proc: %w", err)
	}
	return fd, nil
}

// HostPid returns the pid, as the PID namespace of the /proc at procfd
// (OpenHostProc) numbers it, of the process pidfd refers to: the kernel
// writes it in the descriptor's fdinfo for the PID namespace of the proc
// mount read. The process must not have been reaped yet.
func HostPid(procfd, pidfd int) (int, error) {
	fd, err := unix.Openat(procfd, "self/fdinfo/"+strconv.Itoa(pidfd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("pidfd %d: %w", pidfd, err)
	}
	f := os.NewFile(uintptr(fd), "fdinfo")
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return 0, fmt.Errorf("pidfd %d: %w", pidfd, err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || pid <= 0 {
				return 0, fmt.Errorf("pidfd %d: no live process (Pid: %s)", pidfd, strings.TrimSpace(v))
			}
			return pid, nil
		}
	}
	return 0, fmt.Errorf("pidfd %d: no Pid in its fdinfo", pidfd)
}

// mountAPI reports whether the kernel has the mount calls PrivateRoot
// needs: mount_setattr (Linux 5.12, the newest of them, after open_tree
// and move_mount in 5.2). One call on no descriptor tells: EBADF where it
// exists, ENOSYS where it does not.
func mountAPI() error {
	err := unix.MountSetattr(-1, "", unix.AT_EMPTY_PATH, &unix.MountAttr{})
	if errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("%w: the kernel has no mount_setattr (Linux 5.12), which a session's private root needs", ErrUnavailable)
	}
	return nil
}
