package search

import (
	"io"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/core/scope"
)

// maxIgnoreFile bounds how much of one ignore file is read.
const maxIgnoreFile = 1 << 20

// loadIgnores returns the ignore rules that apply inside n: its parent's,
// then .git/info/exclude when n is a repository root, then n's own
// .gitignore (later ones take precedence).
func (w *walker) loadIgnores(n *dirNode, ents []dirent) *ignoreChain {
	var repo, ignore bool
	for _, e := range ents {
		switch e.name {
		case ".git":
			repo = e.kind == kindDir || e.kind == kindUnknown
		case ".gitignore":
			ignore = true
		}
	}
	c := n.ign
	if repo {
		c = c.push(w.readExclude(n))
	}
	if ignore {
		c = c.push(w.readIgnore(n.h, n.abs, ".gitignore", n.abs))
	}
	return c
}

// readIgnore reads the ignore file name in the directory h (at abs) as
// rules for base. A file the policy refuses, or that cannot be read, gives
// no rules.
func (w *walker) readIgnore(h *dirHandle, abs, name, base string) *ignoreFile {
	if w.o.Policy.Check(joinPath(abs, name)) != nil {
		return nil
	}
	f, err := h.openFile(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	return readIgnoreFrom(f, base)
}

// readExclude reads n/.git/info/exclude.
func (w *walker) readExclude(n *dirNode) *ignoreFile {
	git, err := n.h.openDir(".git")
	if err != nil {
		return nil
	}
	defer git.close()
	info, err := git.openDir("info")
	if err != nil {
		return nil
	}
	defer info.close()
	return w.readIgnore(info, filepath.Join(n.abs, ".git", "info"), "exclude", n.abs)
}

// readIgnoreFrom parses an open ignore file. Only a regular file is read:
// a FIFO or device named .gitignore gives no rules (it was opened without
// blocking, and reading it could wait forever).
func readIgnoreFrom(f *file, base string) *ignoreFile {
	if fi, err := f.stat(); err != nil || fi.kind != kindFile {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil
	}
	return parseIgnore(base, data)
}

// ancestorIgnores returns the rules that apply to root from above it: the
// .gitignore files of its parent directories up to the enclosing
// repository's root (the nearest directory holding .git), and that root's
// .git/info/exclude, as git applies them. Outside a repository, or when the
// way up leaves what the policy allows, there are none.
func ancestorIgnores(p *scope.Policy, root string) *ignoreChain {
	if exists(filepath.Join(root, ".git")) {
		return nil
	}
	var dirs []string // innermost first
	for d := root; ; {
		parent := filepath.Dir(d)
		if parent == d || p.Check(parent) != nil {
			return nil
		}
		dirs = append(dirs, parent)
		if exists(filepath.Join(parent, ".git")) {
			break
		}
		d = parent
	}
	repo := dirs[len(dirs)-1]
	var c *ignoreChain
	c = c.push(readPathIgnore(p, filepath.Join(repo, ".git", "info", "exclude"), repo))
	for i := len(dirs) - 1; i >= 0; i-- {
		c = c.push(readPathIgnore(p, filepath.Join(dirs[i], ".gitignore"), dirs[i]))
	}
	return c
}

// readPathIgnore reads an ignore file by path through the policy.
func readPathIgnore(p *scope.Policy, path, base string) *ignoreFile {
	if !exists(path) {
		return nil
	}
	f, err := openPath(p, path)
	if err != nil {
		return nil
	}
	defer f.Close()
	return readIgnoreFrom(f, base)
}

// exists reports whether something is at path (without following a final
// symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
