package netns

import (
	"os"
	"slices"
	"strings"
)

// View is what a session's commands see of the file system once
// PrivateRoot has run: exactly these paths, each at its own place, on an
// empty read-only root. Everything else (other tenants' trees, their Unix
// sockets and FIFOs, the gateway's state and its egress socket, /tmp,
// /home, /var) is not there at all, whatever Landlock would allow.
type View struct {
	Read      []string // directories, read-only
	ReadFiles []string // single files, read-only
	Write     []string // directories, read-write
	Files     []string // single files (device nodes), read-write
	// Links are symbolic links to make on the new root, name to target:
	// /bin -> usr/bin on a merged-/usr system, since Read names resolved
	// directories.
	Links map[string]string
}

// grant is one path of a View.
type grant struct {
	path  string
	write bool
	dir   bool
}

// grants returns v's paths, parents before children, without those an
// ancestor already grants as much as (a read-only directory inside a
// writable one stays writable, as Landlock's union of rules has it).
func (v View) grants() []grant {
	var all []grant
	add := func(paths []string, write, dir bool) {
		for _, p := range paths {
			all = append(all, grant{path: p, write: write, dir: dir})
		}
	}
	add(v.Read, false, true)
	add(v.ReadFiles, false, false)
	add(v.Write, true, true)
	add(v.Files, true, false)
	slices.SortStableFunc(all, func(a, b grant) int { return strings.Compare(a.path, b.path) })
	var out []grant
	for _, g := range all {
		covered := slices.ContainsFunc(out, func(a grant) bool {
			return a.dir && within(g.path, a.path) && (a.write || !g.write)
		})
		if !covered {
			out = append(out, g)
		}
	}
	return out
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// Links returns, of paths, those that are symbolic links, each with its
// target: what View.Links should recreate.
func Links(paths []string) map[string]string {
	out := map[string]string{}
	for _, p := range paths {
		if target, err := os.Readlink(p); err == nil {
			out[p] = target
		}
	}
	return out
}
