package gateway

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// gatewayPackages are the gateway's packages below this one and the
// others of them each may import. A package not listed fails the test:
// a new room is added here, with what it may see.
var gatewayPackages = map[string][]string{
	"dashboard": {"metrics", "wire"},
	"launch":    {},
	"metrics":   {},
	"pgroles":   {},
	"sessions":  {"dashboard", "launch", "wire"},
	"wire":      {},
}

// TestImports walks the import graph of ./gateway/...: no package below
// gateway imports it (they are what it is built from, never the other way
// round), directly or through another package, and each imports only the
// gateway packages gatewayPackages allows it.
func TestImports(t *testing.T) {
	const root = "github.com/mjkoo/boris/gateway"
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, rest, ok := strings.Cut(fields[0], root+"/")
		if !ok || pkg != "" {
			continue // not below the gateway
		}
		allowed, known := gatewayPackages[rest]
		if !known {
			t.Errorf("package %s is not in gatewayPackages: add it with the gateway packages it may import", fields[0])
			continue
		}
		seen[rest] = true
		for _, imp := range fields[1:] {
			sub, below := strings.CutPrefix(imp, root+"/")
			switch {
			case imp == root:
				t.Errorf("%s imports %s: the gateway's packages never import it", fields[0], root)
			case below && !slices.Contains(allowed, sub):
				t.Errorf("%s imports %s: it may import only %v of the gateway's packages", fields[0], imp, allowed)
			}
		}
	}
	for pkg := range gatewayPackages {
		if !seen[pkg] {
			t.Errorf("gatewayPackages lists %s, which go list does not find", pkg)
		}
	}
}
