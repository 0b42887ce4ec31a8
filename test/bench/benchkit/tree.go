package benchkit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mjkoo/boris/internal/procstat"
)

// TreeUsage sums memory over a process and all its descendants.
type TreeUsage struct {
	Procs      int   `json:"processes"`
	Cores      int   `json:"cores"`             // boris processes among them
	RSS        int64 `json:"rss_bytes"`         // sum of VmRSS: shared pages counted once per process
	PSS        int64 `json:"pss_bytes"`         // sum of Pss: shared pages split between their users
	GatewayRSS int64 `json:"gateway_rss_bytes"` // VmRSS of the root process alone
}

// ReadTree sums the memory of root and its descendants, found through the
// parent pid in /proc/*/stat. Processes that exit meanwhile are skipped.
func ReadTree(root int, boris string) (TreeUsage, error) {
	parents, err := parentMap()
	if err != nil {
		return TreeUsage{}, err
	}
	var u TreeUsage
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

// Descendants lists root and every process below it, root first; nil
// when /proc cannot be read.
func Descendants(root int) []int {
	parents, err := parentMap()
	if err != nil {
		return nil
	}
	return descendants(root, parents)
}
