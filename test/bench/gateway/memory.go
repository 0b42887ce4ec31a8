package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/procstat"
)

// Waits for the process tree to settle: a gateway may end a deleted
// session's core after answering the DELETE, and start a core just after
// answering initialize's request.
const (
	settleTimeout = 10 * time.Second
	leakWait      = 10 * time.Second      // after the last gateway stopped
	pollEvery     = 20 * time.Millisecond // between /proc scans
)

// memory is the memory reading of one gateway.
type memory struct {
	sessions int       // sessions open during the reading
	idle     treeUsage // the tree before the phase opened any session
	open     treeUsage // the tree with every session open
}

// treeUsage sums memory over a process and all its descendants.
type treeUsage struct {
	Procs      int   `json:"processes"`
	Cores      int   `json:"cores"`             // boris processes among them
	RSS        int64 `json:"rss_bytes"`         // sum of VmRSS: shared pages counted once per process
	PSS        int64 `json:"pss_bytes"`         // sum of Pss: shared pages split between their users
	GatewayRSS int64 `json:"gateway_rss_bytes"` // VmRSS of the root process alone
}

// perSession returns the tree's RSS divided by the open sessions: the
// issue's "resident memory per open session".
func (m memory) perSession() float64 { return float64(m.open.RSS) / float64(m.sessions) }

// pssPerSession is perSession with PSS, which does not count the cores'
// shared program text once per core.
func (m memory) pssPerSession() float64 { return float64(m.open.PSS) / float64(m.sessions) }

// measureMemory reads the gateway's process tree with no session open,
// then opens cfg.open sessions (one tools/list each, which must list view)
// and reads it again once every core is running; then closes them all.
func measureMemory(ctx context.Context, cfg config, d *dialer, pid int, boris string) (m memory, err error) {
	m.sessions = cfg.open
	if m.idle, err = settle(ctx, pid, boris, 0); err != nil {
		return m, err
	}
	sessions, err := openSessions(ctx, d, cfg.open)
	defer func() {
		if cerr := closeSessions(sessions); err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return m, err
	}
	for i, cs := range sessions {
		if err := listsView(ctx, cs); err != nil {
			return m, fmt.Errorf("session %d: %w", i, err)
		}
	}
	m.open, err = settle(ctx, pid, boris, cfg.open)
	return m, err
}

// listsView checks that tools/list on cs offers the view tool.
func listsView(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range res.Tools {
		if t.Name == "view" {
			return nil
		}
	}
	return fmt.Errorf("tools/list: no view tool among %d tools", len(res.Tools))
}

// settle waits (up to settleTimeout) until the tree under pid holds cores
// boris processes, then returns its usage. If it never does, the last
// reading is returned: the report shows the count.
func settle(ctx context.Context, pid int, boris string, cores int) (treeUsage, error) {
	deadline := time.Now().Add(settleTimeout)
	for {
		u, err := readTree(pid, boris)
		if err != nil || u.Cores == cores || time.Now().After(deadline) {
			return u, err
		}
		select {
		case <-ctx.Done():
			return u, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// readTree sums the memory of pid and its descendants, found through the
// parent pid in /proc/*/stat. Processes that exit meanwhile are skipped.
func readTree(root int, boris string) (treeUsage, error) {
	parents, err := parentMap()
	if err != nil {
		return treeUsage{}, err
	}
	var u treeUsage
	for _, p := range descendants(root, parents) {
		rss, err := statusKB(p, "VmRSS:")
		if err != nil {
			if p == root {
				return u, fmt.Errorf("read memory of pid %d: %w", p, err)
			}
			continue
		}
		pss, _ := rollupKB(p, "Pss:")
		u.Procs++
		u.RSS += rss << 10
		u.PSS += pss << 10
		if p == root {
			u.GatewayRSS = rss << 10
		}
		if argv, _ := cmdline(p); len(argv) > 0 && argv[0] == boris {
			u.Cores++
		}
	}
	return u, nil
}

// descendants returns root and every process below it, root first.
func descendants(root int, parents map[int]int) []int {
	children := map[int][]int{}
	for p, pp := range parents {
		children[pp] = append(children[pp], p)
	}
	tree := []int{root}
	for i := 0; i < len(tree); i++ {
		kids := children[tree[i]]
		slices.Sort(kids)
		tree = append(tree, kids...)
	}
	return tree
}

// parentMap maps every pid in /proc to its parent's.
func parentMap() (map[int]int, error) {
	pids, err := allPIDs()
	if err != nil {
		return nil, err
	}
	parents := make(map[int]int, len(pids))
	for _, p := range pids {
		if st, err := procstat.Read(p); err == nil {
			parents[p] = st.PPID
		} // else exited
	}
	return parents, nil
}

// allPIDs lists the numeric entries of /proc.
func allPIDs() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var pids []int
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, p)
		}
	}
	return pids, nil
}

// statusKB reads a "Key: N kB" line from /proc/PID/status.
func statusKB(pid int, key string) (int64, error) {
	return fieldKB(filepath.Join("/proc", strconv.Itoa(pid), "status"), key)
}

// rollupKB reads a "Key: N kB" line from /proc/PID/smaps_rollup.
func rollupKB(pid int, key string) (int64, error) {
	return fieldKB(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"), key)
}

// fieldKB returns the number in file's first line starting with key.
func fieldKB(file, key string) (int64, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s line", file, key)
}

// cmdline returns a process's arguments; empty for a zombie.
func cmdline(pid int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"), nil
}
