package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// extraDirs are the directories granted beyond the system's: what New
// resolves, at once, because a missing one is a bad setting.
type extraDirs struct {
	read, write []string
}

// resolveExtra resolves the allowed directories' and --sandbox-read and
// --sandbox-write's entries, which must exist.
func resolveExtra(opts Options) (extraDirs, error) {
	extra := extraDirs{write: append([]string{}, opts.Allowed...)}
	if len(opts.Allowed) == 0 {
		extra.write = []string{"/"} // file tools may touch anything: so may commands
	}
	for _, dir := range opts.ExtraWrite {
		p, err := resolveExisting(dir)
		if err != nil {
			return extra, fmt.Errorf("--sandbox-write %q: %w", dir, err)
		}
		extra.write = append(extra.write, p)
	}
	for _, dir := range opts.ExtraRead {
		p, err := resolveExisting(dir)
		if err != nil {
			return extra, fmt.Errorf("--sandbox-read %q: %w", dir, err)
		}
		extra.read = append(extra.read, p)
	}
	return extra, nil
}

// buildSpec resolves every directory, so rules name the real inodes.
func buildSpec(extra extraDirs, environ []string, tempDir string) Spec {
	var spec Spec
	write := slices.Clone(extra.write)
	if tempDir != "" {
		write = append(write, tempDir)
	}
	read := append(existing(SystemReadDirs), extra.read...)
	spec.Read, spec.Write, spec.Files = prune(read), prune(write), existing(DeviceFiles)
	spec.ReadFiles, spec.Read = homeFiles(environ, spec.Read)
	return spec
}

// resolveExisting makes p absolute and resolves its symlinks; it must exist.
func resolveExisting(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// existing keeps the paths that exist, resolved (so /lib -> usr/lib is
// granted by its target).
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// prune drops duplicates and paths inside another path of the list.
func prune(paths []string) []string {
	var out []string
	for _, p := range paths {
		covered := slices.ContainsFunc(paths, func(q string) bool { return q != p && within(p, q) })
		if !covered && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// homeFiles adds the user's git settings to what commands may read: files
// to the returned file list, directories to dirs.
func homeFiles(environ []string, dirs []string) (files, outDirs []string) {
	home := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && filepath.IsAbs(v) {
			home = v
		}
	}
	if home == "" {
		return nil, dirs
	}
	for _, rel := range homeConfig {
		p, err := filepath.EvalSymlinks(filepath.Join(home, rel))
		if err != nil {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else if err == nil {
			files = append(files, p)
		}
	}
	return files, dirs
}

// GitDomain is where the checkpoints' git runs in the session's spawner
// (Spawner.StartGit): it may read Read and whatever commands may, write
// only the directory Shadow is open on (the shadow repository, opened
// without following links), and, unless commands have the host's
// network, connect over TCP nowhere (ReadOnlySpec).
type GitDomain struct {
	Read   []string
	Shadow *os.File
}

// union is the rules that grant whatever a or b grants, with a's network.
func union(a, b Spec) Spec {
	cat := func(x, y []string) []string { return append(slices.Clone(x), y...) }
	return Spec{
		Read: prune(cat(a.Read, b.Read)), ReadFiles: prune(cat(a.ReadFiles, b.ReadFiles)),
		Write: prune(cat(a.Write, b.Write)), Files: prune(cat(a.Files, b.Files)),
		DenyTCP: a.DenyTCP, TCPPorts: a.TCPPorts,
	}
}
