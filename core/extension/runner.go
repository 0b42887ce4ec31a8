package extension

import (
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// How mcp-bash-framework runs a tool's or a completion's program
// (lib/tools.sh, mcp_tools_call; lib/completion.sh): the file itself when
// it is executable (`[ -x path ]`); otherwise, "when it looks like a
// script", through `bash path`: a name ending in .sh or .bash, or a first
// line starting with "#!" (`head -n1 | grep -q '^#!'`), whatever
// interpreter that line names. Anything else is refused. The framework's
// own examples ship their tool.sh without the execute bit.

// RunsThroughBash reports whether the program at path is run as
// `bash path` (true) or executed itself (false). A file that is neither
// executable nor a script by the rule above is an error saying so.
func RunsThroughBash(path string) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, errors.New("not a regular file")
	}
	if unix.Access(path, unix.X_OK) == nil {
		return false, nil
	}
	if looksLikeScript(path) {
		return true, nil
	}
	return false, errors.New("not executable and not a script (no #! line, not .sh or .bash): chmod +x it")
}

// looksLikeScript is the framework's test for a program without the
// execute bit: a .sh or .bash name, or a first line starting with "#!".
func looksLikeScript(path string) bool {
	if strings.HasSuffix(path, ".sh") || strings.HasSuffix(path, ".bash") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [2]byte
	n, _ := io.ReadFull(f, head[:])
	return n == 2 && string(head[:]) == "#!"
}
