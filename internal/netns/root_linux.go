package netns

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"
)

// stageDirs are where the new root is put together, the first that
// exists: any directory will do, since every granted tree is cloned
// before the stage covers it.
var stageDirs = []string{"/tmp", "/mnt", "/run", "/var"}

// cgroupDir is covered by an empty read-only tmpfs in the new root: the
// host's cgroup tree names every group of the machine (docs/reference/security.md#network-modes: tenants
// neither see nor reach each other).
const cgroupDir = "/sys/fs/cgroup"

// devLinks are the links of /dev that shells and tools expect (process
// substitution, /dev/stdout); they point into the session's own /proc.
var devLinks = map[string]string{
	"/dev/fd": "/proc/self/fd", "/dev/stdin": "/proc/self/fd/0",
	"/dev/stdout": "/proc/self/fd/1", "/dev/stderr": "/proc/self/fd/2",
}

// PrivateRoot replaces this process's root, in the mount namespace Setup
// prepared, by one holding only v: each granted tree is cloned from where
// it is (open_tree, Linux 5.2; read-only ones made so, with everything
// mounted below them, by mount_setattr, Linux 5.12), the clones are
// attached at their own paths on an empty tmpfs, /sys/fs/cgroup is
// covered, and the tmpfs becomes the root (pivot_root), read-only. The old
// root is detached: nothing in this namespace can reach it by any path.
// Descriptors opened before (the host's /proc, the egress socket) stay
// usable. When v grants / itself there is nothing to hide and the root is
// left as it is.
func PrivateRoot(v View) error {
	grants := v.grants()
	if slices.ContainsFunc(grants, func(g grant) bool { return g.path == "/" }) {
		return nil
	}
	trees, err := cloneTrees(grants)
	defer func() {
		for _, t := range trees {
			unix.Close(t.fd)
		}
	}()
	if err != nil {
		return err
	}
	links := withDevLinks(v.Links)
	stage, err := mountStage()
	if err != nil {
		return err
	}
	if err := attachTrees(stage, trees); err != nil {
		return err
	}
	if err := makeLinks(stage, links); err != nil {
		return err
	}
	if err := coverCgroups(stage, trees); err != nil {
		return err
	}
	return pivot(stage)
}

// tree is a granted path's detached clone.
type tree struct {
	grant
	fd int
}

// cloneTrees clones every granted path that exists, with all mounted
// below it; read-only grants become read-only through and through.
func cloneTrees(grants []grant) ([]tree, error) {
	var trees []tree
	for _, g := range grants {
		fd, err := unix.OpenTree(unix.AT_FDCWD, g.path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			continue // missing grants are skipped, as Landlock's rules skip them
		}
		if err != nil {
			return trees, fmt.Errorf("private root: clone %s: %w", g.path, err)
		}
		trees = append(trees, tree{grant: g, fd: fd})
		if g.write {
			continue
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			return trees, fmt.Errorf("private root: make %s read-only: %w", g.path, err)
		}
	}
	return trees, nil
}

// withDevLinks returns want and the links of /dev.
func withDevLinks(want map[string]string) map[string]string {
	out := map[string]string{}
	for name, target := range want {
		out[name] = target
	}
	for name, target := range devLinks {
		out[name] = target
	}
	return out
}

// mountStage mounts the empty tmpfs the new root is built on.
func mountStage() (string, error) {
	for _, dir := range stageDirs {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount("boris-root", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=1m,nr_inodes=4096"); err != nil {
			return "", fmt.Errorf("private root: mount a tmpfs on %s: %w", dir, err)
		}
		return dir, nil
	}
	return "", fmt.Errorf("private root: none of %v is a directory to build it on", stageDirs)
}

// attachTrees attaches each clone at its path under stage. A path below
// an attached tree is already there (the same directory); any other is
// made on the stage's tmpfs: directories for directories, empty files for
// files.
func attachTrees(stage string, trees []tree) error {
	var attached []string
	for _, t := range trees {
		at := filepath.Join(stage, t.path)
		inside := slices.ContainsFunc(attached, func(a string) bool { return within(t.path, a) })
		if !inside {
			if err := mountPoint(at, t.dir); err != nil {
				return fmt.Errorf("private root: %s: %w", t.path, err)
			}
		}
		if err := unix.MoveMount(t.fd, "", unix.AT_FDCWD, at, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("private root: attach %s: %w", t.path, err)
		}
		if t.dir {
			attached = append(attached, t.path)
		}
	}
	return nil
}

// mountPoint makes at, and its parents, on the stage.
func mountPoint(at string, dir bool) error {
	if dir {
		return os.MkdirAll(at, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(at, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// makeLinks makes each link whose place on the stage is free.
func makeLinks(stage string, links map[string]string) error {
	for name, target := range links {
		at := filepath.Join(stage, name)
		if _, err := os.Lstat(at); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			return fmt.Errorf("private root: link %s: %w", name, err)
		}
		if err := os.Symlink(target, at); err != nil {
			return fmt.Errorf("private root: link %s: %w", name, err)
		}
	}
	return nil
}

// coverCgroups mounts an empty read-only tmpfs on /sys/fs/cgroup when /sys
// is in the new root.
func coverCgroups(stage string, trees []tree) error {
	if !slices.ContainsFunc(trees, func(t tree) bool { return within(cgroupDir, t.path) }) {
		return nil
	}
	at := filepath.Join(stage, cgroupDir)
	if fi, err := os.Stat(at); err != nil || !fi.IsDir() {
		return nil
	}
	flags := uintptr(unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	if err := unix.Mount("none", at, "tmpfs", flags, "mode=0555,size=4k"); err != nil {
		return fmt.Errorf("private root: cover %s: %w", cgroupDir, err)
	}
	return nil
}

// pivot makes stage the root and detaches the old one (pivot_root with
// the same directory twice stacks the old root on the new one, from where
// it is unmounted), then makes the new root's own tmpfs read-only.
func pivot(stage string) error {
	if err := unix.Chdir(stage); err != nil {
		return fmt.Errorf("private root: %w", err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("private root: pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("private root: detach the old root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return fmt.Errorf("private root: %w", err)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", 0, &attr); err != nil {
		return fmt.Errorf("private root: make / read-only: %w", err)
	}
	return nil
}
