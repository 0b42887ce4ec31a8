// Command toolcover prints the statement coverage of each toolset's
// package (core/tools/...) from a coverage profile that make test writes
// (go test -coverprofile): what the toolset's own tests reach, each
// package counted by its own tests only. A toolset below the floor is
// marked and makes it exit 1, so make test fails: every toolset keeps
// tests of its own.
//
//	toolcover bin/cover.out
package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/tools/cover"
)

// toolsets is the import path prefix of the toolsets' packages.
const toolsets = "github.com/mjkoo/boris/core/tools/"

// floor is the coverage each toolset's own tests are held to reach.
const floor = 70.0

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: toolcover PROFILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "toolcover: %v\n", err)
		os.Exit(1)
	}
}

// run prints the coverage per toolset that profile records to w.
func run(profile string, w io.Writer) error {
	profiles, err := cover.ParseProfiles(profile)
	if err != nil {
		return fmt.Errorf("read coverage profile: %w", err)
	}
	cov := perToolset(profiles)
	if len(cov) == 0 {
		return fmt.Errorf("no toolset package in %s", profile)
	}
	fmt.Fprintln(w, "coverage of each toolset by its own tests (statements):")
	var below []string
	for _, name := range slices.Sorted(maps.Keys(cov)) {
		c := cov[name]
		mark := ""
		if c.percent() < floor {
			mark = fmt.Sprintf("  (below %.0f %%)", floor)
			below = append(below, name)
		}
		fmt.Fprintf(w, "  %-12s %5.1f %%  %4d of %4d%s\n", name, c.percent(), c.covered, c.total, mark)
	}
	if len(below) > 0 {
		return fmt.Errorf("%s below %.0f %%: add tests in the toolset's package (core/toolkit/tooltest has the shared fakes)", strings.Join(below, ", "), floor)
	}
	return nil
}

// counts are a package's statements and those its tests ran.
type counts struct{ covered, total int }

// percent is the share covered, 0 for a package without statements.
func (c counts) percent() float64 {
	if c.total == 0 {
		return 0
	}
	return 100 * float64(c.covered) / float64(c.total)
}

// perToolset sums the statements of each toolset's package, named by
// the toolset: the package directory's last element.
func perToolset(profiles []*cover.Profile) map[string]counts {
	cov := map[string]counts{}
	for _, p := range profiles {
		dir := path.Dir(p.FileName)
		if !strings.HasPrefix(dir+"/", toolsets) || dir+"/" == toolsets {
			continue
		}
		name := strings.TrimPrefix(dir, toolsets)
		c := cov[name]
		for _, b := range p.Blocks {
			c.total += b.NumStmt
			if b.Count > 0 {
				c.covered += b.NumStmt
			}
		}
		cov[name] = c
	}
	return cov
}
