package cgroup

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// This file finds a process's cgroup in the v2 hierarchy from the text of
// /proc/PID/cgroup and /proc/PID/mountinfo (cgroups(7), proc_pid_mountinfo(5)).
// It only parses text, so that it can be tested on samples.

// ownCgroup returns the path of the "0::" entry of /proc/PID/cgroup: the
// process's cgroup in the v2 hierarchy, relative to the root of its cgroup
// namespace. The kernel always lists it, mounted or not.
func ownCgroup(procCgroup string) (string, error) {
	for line := range strings.Lines(procCgroup) {
		p, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "0::")
		if !ok {
			continue
		}
		if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") {
			return "", fmt.Errorf("%w: unusable cgroup v2 entry %q in /proc/self/cgroup", ErrUnavailable, line)
		}
		return p, nil
	}
	return "", fmt.Errorf("%w: no cgroup v2 entry (0::) in /proc/self/cgroup", ErrUnavailable)
}

// v1Controllers lists the controllers /proc/PID/cgroup shows bound to a
// cgroup v1 hierarchy ("4:memory:/..."): those cannot be used in v2 until
// the host boots with the unified hierarchy.
func v1Controllers(procCgroup string) []string {
	var out []string
	for line := range strings.Lines(procCgroup) {
		id, rest, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ":")
		list, _, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || id == "0" {
			continue
		}
		for c := range strings.SplitSeq(list, ",") {
			if c != "" && !strings.HasPrefix(c, "name=") {
				out = append(out, c)
			}
		}
	}
	return out
}

// mount is one mount of the cgroup v2 hierarchy.
type mount struct {
	root  string // the cgroup shown at the mount point, "/" for the whole hierarchy
	point string // where it is mounted
}

// cgroup2Mounts lists the cgroup2 mounts of a mountinfo file, whose lines
// read "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS".
func cgroup2Mounts(mountinfo string) []mount {
	var out []mount
	for line := range strings.Lines(mountinfo) {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if sep < 6 || sep+1 >= len(f) || f[sep+1] != "cgroup2" {
			continue
		}
		out = append(out, mount{root: unescapeOctal(f[3]), point: unescapeOctal(f[4])})
	}
	return out
}

// hostPath returns where cgroup cg (a path as /proc/PID/cgroup shows it)
// is visible through mounts: the first mount whose root contains it.
func hostPath(cg string, mounts []mount) (string, bool) {
	for _, m := range mounts {
		if rel, ok := within(m.root, cg); ok {
			return path.Join(m.point, rel), true
		}
	}
	return "", false
}

// within returns p relative to root if p is root or lies under it.
func within(root, p string) (string, bool) {
	switch {
	case root == "/":
		return p, true
	case p == root:
		return "", true
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	return rest, ok
}

// unescapeOctal undoes the \NNN escapes the kernel writes in mountinfo
// paths for space, tab, newline and backslash.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// resolve returns the directory of the cgroup given by the "0::" line of
// procCgroup under the cgroup2 mounts of mountinfo.
func resolve(procCgroup, mountinfo string) (string, error) {
	cg, err := ownCgroup(procCgroup)
	if err != nil {
		return "", err
	}
	mounts := cgroup2Mounts(mountinfo)
	if len(mounts) == 0 {
		return "", fmt.Errorf("%w: no cgroup2 file system mounted (see /proc/self/mountinfo)", ErrUnavailable)
	}
	p, ok := hostPath(cg, mounts)
	if !ok {
		return "", fmt.Errorf("%w: cgroup %s is not visible under any cgroup2 mount", ErrUnavailable, cg)
	}
	return p, nil
}
