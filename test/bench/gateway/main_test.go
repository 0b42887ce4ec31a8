package main

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

// TestDescendants checks the walk finds grandchildren and skips other trees.
func TestDescendants(t *testing.T) {
	parents := map[int]int{10: 1, 11: 10, 12: 10, 13: 11, 20: 1, 21: 20}
	got := descendants(10, parents)
	if diff := cmp.Diff([]int{10, 11, 12, 13}, got); diff != "" {
		t.Errorf("descendants(10) (-want +got):\n%s", diff)
	}
}

// TestReadTree checks, on the real /proc, that a child of this process is
// counted in its tree, and as a core when its argv[0] is the core's path.
func TestReadTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory reading uses /proc, which only Linux has")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command to run as a child:", err)
	}
	cmd := exec.Command(sleep, "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	u, err := readTree(os.Getpid(), sleep)
	if err != nil {
		t.Fatal(err)
	}
	if u.Procs < 2 || u.Cores != 1 {
		t.Errorf("readTree: got %d processes, %d cores; want at least 2 processes, 1 core", u.Procs, u.Cores)
	}
	if u.GatewayRSS <= 0 || u.RSS <= u.GatewayRSS {
		t.Errorf("readTree: got tree RSS %d, root RSS %d; want 0 < root < tree", u.RSS, u.GatewayRSS)
	}
	left, err := benchkit.ProcessesNaming("30")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(left, func(s string) bool { return strings.Contains(s, sleep+" 30") }) {
		t.Errorf("ProcessesNaming(\"30\") = %q, want the sleep child among them", left)
	}
}

// TestTargets checks each verdict, a value equal to its limit meeting it.
func TestTargets(t *testing.T) {
	r := results{
		stdio:      stdioResult{call: benchkit.Stats{P50: 400 * time.Microsecond}},
		warmCreate: benchkit.Stats{P50: 5100 * time.Microsecond},
		gateways: []gatewayResult{{
			create:   benchkit.Stats{P50: 15 * time.Millisecond},
			call:     benchkit.Stats{P50: 800 * time.Microsecond},
			rawCall:  benchkit.Stats{P50: 300 * time.Microsecond},
			rawStdio: benchkit.Stats{P50: 100 * time.Microsecond},
			mem:      memory{sessions: 50, open: treeUsage{RSS: 50 * 16e6}},
		}, {}},
	}
	var got []bool
	for _, tg := range targets(r) {
		got = append(got, tg.Met)
	}
	if diff := cmp.Diff([]bool{true, true, false, true, false, false}, got); diff != "" {
		t.Errorf("targets met (-want +got):\n%s", diff)
	}
}
