package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// corpus is a tree to search and the cases measured on it.
type corpus struct {
	name  string
	root  string
	cases []benchCase
	cold  bool // also measure with the page cache dropped before every timed run
}

// corpora returns the trees cfg.corpus selects, preparing the Linux
// sources when they are asked for.
func corpora(ctx context.Context, cfg config) ([]corpus, error) {
	var out []corpus
	if cfg.corpus == "go" || cfg.corpus == "all" {
		out = append(out, corpus{name: "go", root: cfg.root, cases: goCases(), cold: cfg.cold})
	}
	if cfg.corpus == "linux" || cfg.corpus == "all" {
		root, err := benchkit.LinuxSources(ctx, cfg.cache)
		if err != nil {
			return nil, err
		}
		out = append(out, corpus{name: "linux", root: root, cases: linuxCases(), cold: true})
	}
	return out, nil
}

// dropCaches empties the kernel's page, dentry and inode caches (as root
// only), so the next run reads the tree from the disk again.
func dropCaches() error {
	if err := exec.Command("sync").Run(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o644)
}
