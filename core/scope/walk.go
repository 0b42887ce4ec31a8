package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// missing says what a walk does with a directory that is not there.
type missing bool

const (
	refuseMissing missing = false // fail, wrapping fs.ErrNotExist
	makeMissing   missing = true  // create it (0755) in its verified parent
)

// openDir walks relDir below root (open on rootDir) without creating
// anything (walk), and returns a root on the final directory with its
// verified path. A missing component yields an error wrapping
// fs.ErrNotExist.
func (p *Policy) openDir(root *os.Root, rootDir, relDir, abs string) (*os.Root, string, error) {
	return p.walk(root, rootDir, relDir, abs, refuseMissing)
}

// openParent walks relDir below root (open on rootDir), creating missing
// directories (walk), and returns a root on the final directory together
// with its verified path.
func (p *Policy) openParent(root *os.Root, rootDir, relDir, abs string) (*os.Root, string, error) {
	return p.walk(root, rootDir, relDir, abs, makeMissing)
}

// walk is the one security walk every confined operation below an allowed
// directory makes: from root (open on rootDir) it enters relDir one
// component at a time, each through an *os.Root on its parent (which
// refuses a symlink or .. leading out of it), and re-checks the real path
// of every directory it enters against the policy before going further,
// so a directory swapped for a symlink, even between two steps, leads
// nowhere the policy refuses. abs is the path asked for, named in errors.
// It returns a root on the final directory and that directory's verified
// path.
func (p *Policy) walk(root *os.Root, rootDir, relDir, abs string, m missing) (*os.Root, string, error) {
	cur, err := root.OpenRoot(".")
	if err != nil {
		return nil, "", p.rootErr("open", abs, err)
	}
	real, err := p.verifyRoot(cur, rootDir, abs)
	if err != nil {
		cur.Close()
		return nil, "", err
	}
	path := rootDir
	for _, comp := range splitRel(relDir) {
		path = filepath.Join(path, comp)
		if cur, real, err = p.descend(cur, comp, path, abs, m); err != nil {
			return nil, "", err
		}
	}
	return cur, real, nil
}

// descend moves from cur into its child comp (expected at path), creating
// it if missing and m says so. cur is always closed; the child is
// returned only once its real path has passed the policy.
func (p *Policy) descend(cur *os.Root, comp, path, abs string, m missing) (*os.Root, string, error) {
	next, err := p.enterDir(cur, comp, abs, m)
	cur.Close()
	if err != nil {
		return nil, "", err
	}
	real, err := p.verifyRoot(next, path, abs)
	if err != nil {
		next.Close()
		return nil, "", err
	}
	return next, real, nil
}

// splitRel splits a clean relative directory into components ("." = none).
func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

// enterDir opens a root on cur's child comp, creating it first if it is
// missing and m says so. Mkdir never follows a symlink in its final
// component, and OpenRoot refuses one leading outside cur, so neither
// step can act outside the verified parent.
func (p *Policy) enterDir(cur *os.Root, comp, abs string, m missing) (*os.Root, error) {
	if m == makeMissing {
		if err := cur.Mkdir(comp, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, p.rootErr("mkdir", abs, err)
		}
	}
	next, err := cur.OpenRoot(comp)
	if err != nil {
		return nil, p.rootErr("open", abs, err)
	}
	return next, nil
}
