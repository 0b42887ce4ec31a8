package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// A session is more than its core: the core starts a spawner for its
// commands (in its namespaces, with the egress bridge) and one for the
// git that records its checkpoints. To tell where a session's create
// costs CPU and memory, the tree under the gateway is read by role.

// role names what a process under the gateway is.
type role string

const (
	roleGateway  role = "gateway"
	roleCore     role = "core"
	roleCommands role = "spawner (commands)"
	roleGit      role = "spawner (checkpoint git)"
	roleCommand  role = "command or git" // a spawner's child
)

// roleOrder is the order roles are reported in.
var roleOrder = []role{roleGateway, roleCore, roleCommands, roleGit, roleCommand}

// spawnerArg is the boris argument that makes a spawner (sandbox.SpawnerArg).
const spawnerArg = "__boris-sandbox-spawner"

// gitShadowFD is the one path the checkpoints' git spawner may write: the
// shadow repository's descriptor (core/checkpoints.go).
const gitShadowFD = "/proc/self/fd/4"

// roleUsage sums one role's processes.
type roleUsage struct {
	n        int
	cpu      time.Duration // user and system time of the processes themselves
	children time.Duration // of their children already waited for (git, commands, ended cores)
	pss      int64         // bytes
}

// roleReading is the tree under a gateway read by role.
type roleReading map[role]roleUsage

// readRoles reads every process under the gateway at pid by role.
func readRoles(pid int, boris string) roleReading {
	out := roleReading{}
	for _, p := range benchkit.Descendants(pid) {
		self, kids, err := cpuTimes(p)
		if err != nil {
			continue // exited meanwhile
		}
		r := roleOf(p, pid, boris)
		u := out[r]
		u.n++
		u.cpu += self
		u.children += kids
		u.pss += pssBytes(p)
		out[r] = u
	}
	return out
}

// roleOf says what process p under the gateway gw is.
func roleOf(p, gw int, boris string) role {
	if p == gw {
		return roleGateway
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
	if err != nil {
		return roleCommand
	}
	argv := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	switch {
	case len(argv) > 1 && argv[1] == spawnerArg:
		// The checkpoints' git spawner alone may write the shadow, which
		// it is given as descriptor 4.
		if slices.Contains(argv, "w:"+gitShadowFD) {
			return roleGit
		}
		return roleCommands
	case len(argv) > 0 && argv[0] == boris:
		return roleCore
	}
	return roleCommand
}

// cpuTimes reads a process's own CPU time and its waited-for children's
// from /proc/PID/stat (utime, stime, cutime, cstime).
func cpuTimes(pid int) (self, children time.Duration, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	end := strings.LastIndexByte(string(data), ')')
	if end < 0 {
		return 0, 0, fmt.Errorf("pid %d: malformed stat", pid)
	}
	f := strings.Fields(string(data[end+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("pid %d: malformed stat", pid)
	}
	var t [4]int64
	for i := range t {
		t[i], _ = strconv.ParseInt(f[11+i], 10, 64)
	}
	tick := time.Second / 100 // USER_HZ
	return time.Duration(t[0]+t[1]) * tick, time.Duration(t[2]+t[3]) * tick, nil
}

// pssBytes is a process's proportional set size, 0 when unreadable.
func pssBytes(pid int) int64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// writeRoles writes where the sessions' CPU and memory went, per role
// and per open session: once the sessions were opened (their start,
// with the gateway's own and its ended cores' as children), and what the
// load added.
func writeRoles(out io.Writer, sessions int, idle, loaded roleReading) {
	per := func(d time.Duration) string {
		return fmt.Sprintf("%.1f ms", benchkit.Ms(d)/float64(sessions))
	}
	fmt.Fprintf(out, "where the sessions went, per open session (%d): CPU once opened (its own + its waited children's), PSS, CPU the load added\n", sessions)
	fmt.Fprintf(out, "  %-26s %6s %12s %12s %10s %12s\n", "role", "procs", "cpu", "children", "PSS", "load cpu")
	for _, r := range roleOrder {
		i, l := idle[r], loaded[r]
		if i.n == 0 && l.n == 0 {
			continue
		}
		added := (l.cpu + l.children) - (i.cpu + i.children)
		fmt.Fprintf(out, "  %-26s %6d %12s %12s %7.2f MB %12s\n", r, i.n, per(i.cpu), per(i.children),
			float64(i.pss)/(1<<20)/float64(sessions), per(added))
	}
}
