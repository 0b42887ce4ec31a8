// Package gitenv provides how every git Boris runs is started (checkpoint
// shadow repositories, workspaces): hardened, so that nothing a principal
// could have written makes git run a program (docs/reference/security.md).
//
// git reads configuration from the system, the user and the repository,
// and attributes from the tree; each of them can name a program for git to
// run: hooks, core.fsmonitor, diff.external, a textconv or filter driver,
// core.sshCommand, credential helpers, an editor, a pager, gpg. Boris's git
// reads no system or global configuration (GIT_CONFIG_NOSYSTEM,
// GIT_CONFIG_GLOBAL, no HOME), no global attributes or excludes, and
// overrides on its command line, which beats every file, each setting that
// names a program. Filters and diff drivers are chosen by attributes; the
// repository's info/attributes (Attributes, highest precedence) unsets
// them for every path. The repository's own configuration is still read:
// callers keep it where no principal can write it, and run git confined.
package gitenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Args go before the subcommand of every git Boris runs: settings that
// name a program are emptied or pointed at nothing, automatic
// maintenance is off, and no transport is allowed.
var Args = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.attributesFile=/dev/null",
	"-c", "core.excludesFile=/dev/null",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=false",
	"-c", "core.editor=false",
	"-c", "sequence.editor=false",
	"-c", "core.pager=cat",
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "gpg.program=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.symlinks=true",
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "init.defaultBranch=main",
}

// DiffArgs go after a diff-producing subcommand (diff, show, log -p):
// never an external diff program, never a textconv filter.
var DiffArgs = []string{"--no-ext-diff", "--no-textconv", "--no-color"}

// Attributes is the info/attributes Boris writes into every repository it
// drives: recorded bytes are the file's bytes, whatever the tree's
// .gitattributes say: no end-of-line conversion, no clean/smudge filter,
// no ident or encoding rewrite, no diff or merge driver.
const Attributes = "* -text -filter -ident -working-tree-encoding !diff !merge -export-subst\n"

// Name and Email are the identity of every commit Boris makes: git's
// through Env, and the checkpoints it writes itself.
const (
	Name  = "boris"
	Email = "boris@localhost"
)

// Env is git's whole environment: PATH and TMPDIR from environ, a fixed
// identity, and nothing else of the user's (no GIT_* variable, no HOME, so
// no ~/.gitconfig, ~/.config/git or global attributes), plus extra.
func Env(environ []string, extra ...string) []string {
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_LITERAL_PATHSPECS=1",
		"GIT_AUTHOR_NAME=" + Name, "GIT_AUTHOR_EMAIL=" + Email,
		"GIT_COMMITTER_NAME=" + Name, "GIT_COMMITTER_EMAIL=" + Email,
		"LC_ALL=C",
	}
	for _, kv := range environ {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// Look finds git on environ's PATH (the last PATH wins, as for a shell).
func Look(environ []string) (string, error) {
	path := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, "git")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
