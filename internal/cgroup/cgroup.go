// Package cgroup provides one cgroup (v2) per gateway session, so that
// ending a session ends everything it started (docs/reference/security.md#nothing-escapes-a-session: "Each core runs in
// its own cgroup (v2) when the gateway can create one ... ending a session
// kills the whole cgroup (cgroup.kill), so setsid/double-forked processes
// die too").
//
// A Manager owns one directory of session cgroups, <root>/boris-sessions,
// where root is the gateway's own cgroup unless Options.Root says
// otherwise. Manager.New creates one Group per session; the gateway starts
// the session's core straight into it with
//
//	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: g.FD()}
//
// (clone3 with CLONE_INTO_CGROUP; Group.ApplyTo sets both fields where
// they exist), so there is no moment in which the core runs, or forks,
// outside its group. Group.Kill writes cgroup.kill, which SIGKILLs every
// process of the group at once, including ones forked while the kill is
// under way, then removes the group. A process leaves its group only by
// writing to the cgroup file system, which the core's sandbox does not
// let commands do (docs/reference/security.md lists what they may write).
//
// Only one Manager may use a sessions directory at a time: Open takes an
// exclusive flock(2) on it, which the kernel drops when the gateway dies.
// Whatever Open then finds in it was left by a gateway that died without
// Close (SIGKILL, a crash); its cores died with it, but the commands they
// started may live on, so Open kills and removes those groups.
//
// Limits need controllers. Open enables in cgroup.subtree_control only the
// controllers the requested limits need (pids, memory, cpu), in root and in
// the sessions directory. The cgroup v2 "no internal processes" rule
// forbids that in a cgroup that holds processes (the hierarchy's root
// excepted), so when root holds the gateway itself, as the cgroup of a
// systemd service with Delegate=yes does, Open first moves the gateway
// into the leaf <root>/boris-gateway, as systemd's own delegated services
// do. The gateway stays there: Close leaves both the leaf and root's
// subtree_control alone, for the process is about to exit and the service
// manager removes its cgroup after it.
package cgroup

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// ErrUnavailable is wrapped by Open's errors when cgroup v2 cannot be used
// here: no cgroup2 hierarchy, a root that is not in one or not writable, or
// a kernel without cgroup.kill (Linux before 5.14). The gateway falls back
// to running without session cgroups (--cgroups auto) or refuses to start
// (--cgroups required).
var ErrUnavailable = errors.New("cgroup v2 unavailable")

// ErrNotOwned is wrapped by Open's errors, beside ErrUnavailable, when the
// sessions directory exists but belongs to another user or is not
// writable: left by a gateway that ran as someone else, it needs its owner
// (or root) to remove it.
var ErrNotOwned = errors.New("sessions cgroup not usable by this gateway")

// ErrNoController is wrapped by Open's error when a limit is requested but
// the controller that enforces it is not available in the root cgroup. It
// does not wrap ErrUnavailable: the operator asked for the limit, so the
// gateway should refuse to start rather than run without it.
var ErrNoController = errors.New("cgroup controller not available")

// Names of the directories Open creates under the root.
const (
	sessionsDir = "boris-sessions" // parent of the session groups
	gatewayLeaf = "boris-gateway"  // where the gateway moves itself (see the package comment)
)

// Limits are per-session resource limits, written into every session
// group. Zero fields are unset: the session gets whatever its parents allow.
type Limits struct {
	// PidsMax is the most processes (and threads) one session may run at
	// once: pids.max, enforced by the pids controller.
	PidsMax int64 `json:"pids_max,omitempty"`
	// MemoryMax is the most memory, in bytes, one session may use:
	// memory.max, enforced by the memory controller. Beyond it the kernel
	// reclaims, then OOM-kills within the session. Where the kernel
	// accounts swap (memory.swap.max exists), the session's swap is limited
	// to 0 as well, so that the limit bounds the memory it takes from the
	// host, not merely its share of RAM.
	MemoryMax int64 `json:"memory_max,omitempty"`
	// CPUWeight is the session's share of CPU time against its siblings,
	// 1 to 10000 (the default of a cgroup is 100): cpu.weight, enforced by
	// the cpu controller.
	CPUWeight int `json:"cpu_weight,omitempty"`
}

// controllers lists the controllers that enforce l, in the order of the
// fields of Limits.
func (l Limits) controllers() []string {
	var out []string
	if l.PidsMax > 0 {
		out = append(out, "pids")
	}
	if l.MemoryMax > 0 {
		out = append(out, "memory")
	}
	if l.CPUWeight > 0 {
		out = append(out, "cpu")
	}
	return out
}

func (l Limits) validate() error {
	switch {
	case l.PidsMax < 0:
		return fmt.Errorf("cgroup: invalid pids limit %d: want 0 (unset) or more", l.PidsMax)
	case l.MemoryMax < 0:
		return fmt.Errorf("cgroup: invalid memory limit %d: want 0 (unset) or more", l.MemoryMax)
	case l.CPUWeight < 0 || l.CPUWeight > 10000:
		return fmt.Errorf("cgroup: invalid CPU weight %d: want 1 to 10000, or 0 (unset)", l.CPUWeight)
	}
	return nil
}

// Options configure Open.
type Options struct {
	// Root is the cgroup v2 directory to create the sessions directory in,
	// e.g. /sys/fs/cgroup/system.slice/boris-gateway.service. If empty,
	// it is the calling process's own cgroup: the "0::" line of
	// /proc/self/cgroup, under the cgroup2 mount of /proc/self/mountinfo.
	Root string
	// Limits are written into every session group. Zero means none.
	Limits Limits
	// Logger receives what Open and Close do on their own: stale groups
	// killed, the gateway moved into its leaf. Nil means no logs.
	Logger *slog.Logger
}

// Info describes what a Manager enforces, for logs and /healthz.
type Info struct {
	// Path is the directory holding the session groups.
	Path string `json:"path"`
	// Controllers are the controllers enabled for the session groups, the
	// ones the limits need, e.g. ["pids", "memory"]; empty without limits.
	Controllers []string `json:"controllers"`
	// Limits are the limits written into every session group.
	Limits Limits `json:"limits"`
}

// validName reports whether name can be a session group's name: one path
// element, so that a group can never be created outside the sessions
// directory.
func validName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("cgroup: invalid session group name %q: want one path element", name)
	}
	return nil
}
