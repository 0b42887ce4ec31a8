package benchkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The Linux kernel sources (about 78,000 files) are the large real tree
// the grep and checkpoint benchmarks measure on.

// linuxSource is where Debian's linux-source package puts its tarball.
const linuxSource = "/usr/src/linux-source-*.tar.xz"

// LinuxSources returns the root of the Linux kernel sources extracted in
// cache, installing Debian's linux-source package and extracting its
// tarball the first time (minutes; later runs reuse the tree).
func LinuxSources(ctx context.Context, cache string) (string, error) {
	tarball, err := linuxTarball(ctx)
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(tarball), ".tar.xz")
	root := filepath.Join(cache, name)
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err == nil {
		return root, prepareLinux(root)
	}
	fmt.Fprintf(os.Stderr, "bench: extracting %s into %s\n", tarball, cache)
	tmp := filepath.Join(cache, ".extract-"+name)
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	tar := exec.CommandContext(ctx, "tar", "-xJf", tarball, "-C", tmp)
	tar.Stdout, tar.Stderr = os.Stderr, os.Stderr
	if err := tar.Run(); err != nil {
		return "", fmt.Errorf("extract %s: %w", tarball, err)
	}
	if err := os.Rename(filepath.Join(tmp, name), root); err != nil {
		return "", fmt.Errorf("extract %s: %w", tarball, err)
	}
	return root, prepareLinux(root)
}

// prepareLinux makes the extracted tree at root one both tools search
// alike, once (a marker file beside the tree records it): Debian's rules
// are cut off the top-level .gitignore, and the tree's symbolic links
// (56 in 6.1) are removed, since boris follows links to files and rg
// without -L follows none.
func prepareLinux(root string) error {
	marker := root + ".prepared"
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := upstreamGitignore(root); err != nil {
		return err
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type()&os.ModeSymlink != 0 {
			err = os.Remove(path)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("remove the links of %s: %w", root, err)
	}
	return os.WriteFile(marker, nil, 0o644)
}

// debianIgnore starts the rules Debian's packaging appends to the
// kernel's top-level .gitignore: "/*" and "!/debian/", which ignore the
// whole tree but the packaging.
const debianIgnore = "#\n# Debian packaging"

// upstreamGitignore cuts Debian's rules off the top-level .gitignore of
// the kernel tree at root, so both tools search the sources under the
// kernel's own rules.
func upstreamGitignore(root string) error {
	path := filepath.Join(root, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := strings.Index(string(data), debianIgnore)
	if i < 0 {
		return nil
	}
	return os.WriteFile(path, data[:i], 0o644)
}

// linuxTarball finds the kernel source tarball, installing the package
// that provides it when it is missing.
func linuxTarball(ctx context.Context) (string, error) {
	if m, _ := filepath.Glob(linuxSource); len(m) > 0 {
		return m[len(m)-1], nil
	}
	fmt.Fprintln(os.Stderr, "bench: no kernel sources; apt-get install -y linux-source")
	cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "--no-install-recommends", "linux-source")
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install linux-source: %w", err)
	}
	if m, _ := filepath.Glob(linuxSource); len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", errors.New("linux-source is installed but " + linuxSource + " is missing")
}
