package benchkit

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	u, err := ReadTree(os.Getpid(), sleep)
	if err != nil {
		t.Fatal(err)
	}
	if u.Procs < 2 || u.Cores != 1 {
		t.Errorf("ReadTree: got %d processes, %d cores; want at least 2 processes, 1 core", u.Procs, u.Cores)
	}
	if u.GatewayRSS <= 0 || u.RSS <= u.GatewayRSS {
		t.Errorf("ReadTree: got tree RSS %d, root RSS %d; want 0 < root < tree", u.RSS, u.GatewayRSS)
	}
	left, err := ProcessesNaming("30")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(left, func(s string) bool { return strings.Contains(s, sleep+" 30") }) {
		t.Errorf("ProcessesNaming(\"30\") = %q, want the sleep child among them", left)
	}
}
