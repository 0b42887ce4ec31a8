package core

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mjkoo/boris"

// TestLayout walks the import graph (go list -deps) and holds the core to
// its layout: a toolset package (core/tools/...) imports neither another
// toolset nor the composition root (core), and the shared kit beneath
// them (core/... and internal/...) imports no toolset and not the root,
// and neither does the gateway.
// go list's Deps are transitive: an import through a third package counts.
func TestLayout(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		deps[fields[0]] = fields[1:]
	}
	root := module + "/core"
	toolsets := 0
	for pkg, ds := range deps {
		own := slices.DeleteFunc(slices.Clone(ds), func(d string) bool { return !strings.HasPrefix(d, module+"/") })
		switch {
		case isToolset(pkg):
			toolsets++
			for _, d := range own {
				if d == root || isToolset(d) {
					t.Errorf("toolset %s imports %s: a toolset imports only the shared kit", pkg, d)
				}
			}
		case isKit(pkg):
			for _, d := range own {
				if d == root || isToolset(d) {
					t.Errorf("%s, of the shared kit, imports %s", pkg, d)
				}
			}
		case strings.HasPrefix(pkg, module+"/gateway") || pkg == module+"/cmd/boris-gateway":
			for _, d := range own {
				if d == root || isToolset(d) {
					t.Errorf("%s imports %s: the gateway runs cores as processes, and takes what it reads of them from core/corecheck", pkg, d)
				}
			}
		}
	}
	if toolsets == 0 {
		t.Fatalf("go list found no toolset package under %s/tools", root)
	}
}

// isToolset reports whether pkg is a toolset's package.
func isToolset(pkg string) bool {
	return strings.HasPrefix(pkg, module+"/core/tools/")
}

// isKit reports whether pkg belongs to the shared kit: a package under
// core/ that is not a toolset's, or one under internal/.
func isKit(pkg string) bool {
	return strings.HasPrefix(pkg, module+"/internal/") || strings.HasPrefix(pkg, module+"/core/") && !isToolset(pkg)
}
