package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The cold rows: the first call of a session right after initialize, with
// a state directory never used before (no warm-up), on trees made of
// copies of Go's src (hard links: no copy of the bytes), checkpoints on
// and off. With checkpoints on, the starting checkpoint is taken in the
// background from initialize; the rows also say how long it took (wall
// time from initialize until history, which waits for it, answers), the
// CPU seconds the core and its git children spent by then, and the
// shadow's size on disk beside the tree's.

// coldRun is one fresh core's numbers.
type coldRun struct {
	firstCall  time.Duration // the first call after initialize
	startWall  time.Duration // initialize until the starting checkpoint is recorded (on)
	startCPU   time.Duration // the core's and its children's CPU by then (on)
	shadowSize int64         // bytes of the state directory (on)
}

// coldTree makes a tree of copies of $GOROOT/src, enough to hold at least
// files files, under dir; it returns the number of files.
func coldTree(ctx context.Context, dir string, files int) (int, error) {
	src := filepath.Join(benchkit.GoRoot(), "src")
	per, err := countFiles(src)
	if err != nil || per == 0 {
		return 0, fmt.Errorf("count the files of %s: %v", src, err)
	}
	copies := max(1, (files+per/2)/per)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	for i := range copies {
		if out, err := exec.CommandContext(ctx, "cp", "-al", src, filepath.Join(dir, "src"+strconv.Itoa(i))).CombinedOutput(); err != nil {
			return 0, fmt.Errorf("link %s: %w: %s", src, err, out)
		}
	}
	return copies * per, nil
}

// countFiles counts the regular files under dir.
func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	return n, err
}

// coldOnce starts a core on tree with a fresh state directory, times the
// first call (kind: "str_replace" or "bash"), and with checkpoints on
// waits for the starting checkpoint and measures it.
func coldOnce(ctx context.Context, boris, tree, stateRoot, mode, kind string, i int) (coldRun, error) {
	var r coldRun
	if err := os.WriteFile(filepath.Join(tree, "edit.txt"), []byte("alpha\n"), 0o644); err != nil {
		return r, err
	}
	state := filepath.Join(stateRoot, fmt.Sprintf("%s-%s-%d", mode, strings.ReplaceAll(kind, " ", ""), i))
	defer os.RemoveAll(state)
	cmd := exec.Command(boris, "--workdir", tree, "--checkpoints", mode)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	cs, err := benchkit.NewClient(prog).Connect(ctx, benchkit.CommandTransport(cmd), nil)
	if err != nil {
		return r, fmt.Errorf("start boris on %s: %w", tree, err)
	}
	defer cs.Close()
	initialized := time.Now()
	switch kind {
	case "str_replace":
		r.firstCall, err = call(ctx, cs, "str_replace", map[string]any{"path": "edit.txt", "old_str": "alpha", "new_str": "beta"})
	default:
		r.firstCall, err = call(ctx, cs, "bash", map[string]any{"command": "echo x >> log.txt"})
	}
	if err != nil || mode == "off" {
		return r, err
	}
	if _, err := call(ctx, cs, "history", map[string]any{"limit": 1}); err != nil {
		return r, err
	}
	r.startWall = time.Since(initialized)
	r.startCPU = processCPU(cmd.Process.Pid)
	r.shadowSize = diskUsage(state)
	return r, nil
}

// processCPU is the user and system time of pid and of every live
// descendant (the core's git spawner), each with the children it has
// waited for (git), from /proc.
func processCPU(pid int) time.Duration {
	entries, _ := os.ReadDir("/proc")
	parent, ticks := map[int]int{}, map[int]int64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		parent[p], _ = strconv.Atoi(f[1])
		for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime, after the state field
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks[p] += n
		}
	}
	var total int64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += t
				break
			}
		}
	}
	return time.Duration(total) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// diskUsage is du -sbl of dir, in bytes, hard links counted each time
// (0 when du fails).
func diskUsage(dir string) int64 {
	out, err := exec.Command("du", "-sbl", dir).Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	return n
}

// cold measures and prints the cold rows for each size.
func cold(ctx context.Context, cfg config, boris, root string) error {
	fmt.Printf("\ncold: the first call after initialize, fresh state, median of %d runs (every run in brackets)\n", cfg.coldRuns)
	fmt.Printf("%-8s %-5s %-12s %10s %12s %12s %12s %12s  %s\n", "files", "ckpt", "first call", "p50", "start wall", "start CPU", "shadow", "tree", "runs: first call / start wall / start CPU")
	var growth []coldGrowth
	for _, size := range cfg.coldSizes {
		tree := filepath.Join(root, fmt.Sprintf("cold-%d", size))
		n, err := coldTree(ctx, tree, size)
		if err != nil {
			return err
		}
		treeSize := diskUsage(tree)
		for _, kind := range []string{"str_replace", "bash"} {
			for _, mode := range []string{"off", "on"} {
				var runs []coldRun
				for i := range cfg.coldRuns {
					r, err := coldOnce(ctx, boris, tree, filepath.Join(root, "cold-state"), mode, kind, i)
					if err != nil {
						return fmt.Errorf("cold %s, %d files, checkpoints %s: %w", kind, n, mode, err)
					}
					runs = append(runs, r)
				}
				printCold(n, mode, kind, runs, treeSize)
				if mode == "on" && kind == "str_replace" {
					growth = append(growth, coldGrowth{files: n, wall: median(runs, coldRun.wall), cpu: median(runs, coldRun.cpu), shadow: runs[len(runs)/2].shadowSize})
				}
			}
		}
		_ = os.RemoveAll(tree)
	}
	printGrowth(growth)
	return nil
}

// coldGrowth is one tree's starting checkpoint, for printGrowth.
type coldGrowth struct {
	files     int
	wall, cpu time.Duration
	shadow    int64
}

// printGrowth prints the starting checkpoint's cost per 10,000 files on
// each tree: flat when it grows linearly with the tree.
func printGrowth(rows []coldGrowth) {
	if len(rows) < 2 {
		return
	}
	fmt.Printf("\nstarting checkpoint per 10,000 files (linear growth: the same on every tree)\n")
	fmt.Printf("%-8s %12s %12s %12s\n", "files", "wall", "CPU", "shadow")
	for _, r := range rows {
		per := 10000 / float64(r.files)
		fmt.Printf("%-8d %10.2f s %10.2f s %9.1f MB\n", r.files, r.wall.Seconds()*per, r.cpu.Seconds()*per, float64(r.shadow)*per/(1<<20))
	}
}

func (r coldRun) wall() time.Duration  { return r.startWall }
func (r coldRun) cpu() time.Duration   { return r.startCPU }
func (r coldRun) first() time.Duration { return r.firstCall }

// median is the median of get over runs.
func median(runs []coldRun, get func(coldRun) time.Duration) time.Duration {
	ds := make([]time.Duration, len(runs))
	for i, r := range runs {
		ds[i] = get(r)
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// printCold prints one row: medians of runs, then every run.
func printCold(files int, mode, kind string, runs []coldRun, treeSize int64) {
	wall, cpu, shadow := "-", "-", "-"
	var each []string
	for _, r := range runs {
		if mode == "on" {
			each = append(each, fmt.Sprintf("%s/%.1fs/%.1fs", benchkit.FormatMs(r.firstCall), r.startWall.Seconds(), r.startCPU.Seconds()))
		} else {
			each = append(each, benchkit.FormatMs(r.firstCall))
		}
	}
	if mode == "on" {
		wall = fmt.Sprintf("%.1f s", median(runs, coldRun.wall).Seconds())
		cpu = fmt.Sprintf("%.1f s", median(runs, coldRun.cpu).Seconds())
		shadow = fmt.Sprintf("%d MB", runs[len(runs)/2].shadowSize>>20)
	}
	fmt.Printf("%-8d %-5s %-12s %10s %12s %12s %12s %12s  [%s]\n", files, mode, kind, benchkit.FormatMs(median(runs, coldRun.first)),
		wall, cpu, shadow, fmt.Sprintf("%d MB", treeSize>>20), strings.Join(each, " "))
}
