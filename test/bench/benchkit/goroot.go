package benchkit

import (
	"os/exec"
	"strings"
)

// GoRoot is $(go env GOROOT): the Go sources the benchmarks search. ""
// when go cannot say.
func GoRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
