package extensions

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Extension scripts mostly start with `#!/usr/bin/env bash` (the
// framework's scaffold writes that line). Run as they are, each call
// starts env, which loads its locale and searches PATH, only to exec
// bash: a whole process start (~2-3 ms) for nothing. extArgv does what
// env would have done instead, so the tool's interpreter starts directly.

// extShebangMax is how much of a script's first line is read: the
// kernel's own limit on a #! line.
const extShebangMax = 256

// extArgv is the argv that runs the executable path with the environment
// env: [interpreter, path] when its first line is `#!/usr/bin/env NAME`
// (or /bin/env) and NAME is found on env's PATH as env would find it,
// else [path], which the kernel runs as usual. Only an interpreter in the
// system directories every sandboxed command may execute from is taken:
// one elsewhere may be out of the sandbox's reach, where env would go on
// to the next PATH entry. Anything else env would
// treat differently (an option, more than one word, a NAME with a slash,
// a relative or empty PATH entry) is left to env.
//
// A program without the execute bit that the framework would run through
// bash (extension.RunsThroughBash: a .sh or .bash name, or a #! line) is
// [bash, path], bash found as extBash finds it. It runs under the same
// sandbox as any other: reading the file is all bash needs, and the
// sandbox grants execute wherever it grants read.
func extArgv(path string, env []string) []string {
	if viaBash, err := extension.RunsThroughBash(path); err == nil && viaBash {
		return []string{extBash(env), path}
	}
	name := extEnvInterpreter(path)
	if name == "" {
		return []string{path}
	}
	if bin := extLookPath(name, flagenv.Lookup(env, "PATH")); bin != "" && extSystemBinary(bin) {
		return []string{bin, path}
	}
	return []string{path}
}

// extBash is the bash the framework's `bash path` would start: the first
// on the tool's PATH, taken only from the system directories (one
// elsewhere, say in a directory the agent can write, is passed over for
// /bin/bash), as extArgv takes env's interpreter.
func extBash(env []string) string {
	if bin := extLookPath("bash", flagenv.Lookup(env, "PATH")); bin != "" && extSystemBinary(bin) {
		return bin
	}
	return "/bin/bash"
}

// extEnvInterpreter is NAME when path's first line is `#!/usr/bin/env
// NAME` as the kernel splits it (the interpreter, then the rest of the
// line, without surrounding spaces and tabs, as one argument), else "".
func extEnvInterpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, extShebangMax)
	n, err := io.ReadFull(f, buf)
	if err != nil && n == 0 {
		return ""
	}
	line, _, ok := strings.Cut(string(buf[:n]), "\n")
	if !ok || !strings.HasPrefix(line, "#!") {
		return ""
	}
	rest := strings.TrimLeft(line[2:], " \t")
	interp, arg := rest, ""
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		interp, arg = rest[:i], strings.Trim(rest[i:], " \t")
	}
	if interp != "/usr/bin/env" && interp != "/bin/env" || arg == "" || arg[0] == '-' {
		return ""
	}
	// The kernel would need both: to execute the script and its env.
	if unix.Access(path, unix.X_OK) != nil || unix.Access(interp, unix.X_OK) != nil {
		return ""
	}
	for _, c := range arg {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '+'
		if !ok {
			return ""
		}
	}
	return arg
}

// extLookPath finds name in the directories of pathList as env does (the
// first regular file this process may execute), or returns "" when it is not
// found or the search would depend on the working directory.
func extLookPath(name, pathList string) string {
	if pathList == "" {
		return ""
	}
	for _, dir := range strings.Split(pathList, ":") {
		if !filepath.IsAbs(dir) {
			return "" // "" and relative entries: env resolves them from the tool's directory
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && unix.Access(p, unix.X_OK) == nil {
			return p
		}
	}
	return ""
}

// extSystemBinary reports whether bin lies in one of the system
// directories (sandbox.SystemReadDirs).
func extSystemBinary(bin string) bool {
	for _, d := range sandbox.SystemReadDirs {
		if strings.HasPrefix(bin, d+"/") {
			return true
		}
	}
	return false
}
