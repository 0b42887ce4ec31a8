// Package npmcache provides the one place, outside the checkout, where
// Boris's tests and benchmarks install the npm packages they pin: the MCP
// TypeScript clients and conformance suite of test/interop, the peer
// servers of test/bench. A checkout stays free of node_modules (hundreds
// of MB), and worktrees and repeated runs share one installation per
// package-lock.json.
//
// The root is $BORIS_TEST_CACHE, else boris-test in the user's cache
// directory ($XDG_CACHE_HOME, else ~/.cache; ~/Library/Caches on macOS).
// Each pinned set is installed by "npm ci" into npm/NAME-HASH below it,
// NAME being package.json's name and HASH a digest of package.json and
// package-lock.json, so a changed pin installs afresh beside the old.
package npmcache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// marker is the file Install writes once npm ci has succeeded.
const marker = ".boris-installed"

// Root is the directory every installation lives under.
func Root() (string, error) {
	if dir := os.Getenv("BORIS_TEST_CACHE"); dir != "" {
		return filepath.Abs(dir)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for npm packages (set BORIS_TEST_CACHE): %w", err)
	}
	return filepath.Join(cache, "boris-test"), nil
}

// Dir is where the packages pinned by src's package.json and
// package-lock.json are (or will be) installed: Dir/node_modules.
func Dir(src string) (string, error) {
	h := sha256.New()
	var name string
	for _, f := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", fmt.Errorf("npm packages of %s: %w", src, err)
		}
		if f == "package.json" {
			var pkg struct{ Name string }
			if err := json.Unmarshal(data, &pkg); err != nil || pkg.Name == "" {
				return "", fmt.Errorf("npm packages of %s: package.json has no name (%v)", src, err)
			}
			name = filepath.Base(pkg.Name)
		}
		h.Write(data)
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "npm", name+"-"+hex.EncodeToString(h.Sum(nil))[:12]), nil
}

// Install makes sure the packages src pins are installed and returns Dir.
// The first time, it says on log what it installs where and why, and runs
// "npm ci" in a fresh directory that it then renames into place, so a run
// that fails or is interrupted leaves nothing half-installed.
func Install(ctx context.Context, src string, log io.Writer) (string, error) {
	dir, err := Dir(src)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		return dir, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is not on PATH: the packages pinned in %s/package-lock.json are installed with \"npm ci\"; install Node.js with npm (any version) and rerun", src)
	}
	fmt.Fprintf(log, "installing the npm packages pinned in %s/package-lock.json into %s (npm ci; outside the checkout, reused by later runs)\n", src, dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := CopyFiles(tmp, src, "package.json", "package-lock.json"); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci for %s in %s: %v\n%s", src, tmp, err, out.Bytes())
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run installed the same set meanwhile: use that one.
		if _, serr := os.Stat(filepath.Join(dir, marker)); serr != nil {
			return "", fmt.Errorf("install npm packages into %s: %w", dir, err)
		}
	}
	return dir, nil
}

// CopyFiles copies the named files of src into dst, each written whole
// and renamed into place, so a concurrent reader never sees part of one.
// Scripts that import the packages must lie in the installation (Node
// resolves an import from the importing file's directory, and ES modules
// ignore NODE_PATH).
func CopyFiles(dst, src string, names ...string) error {
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		f, err := os.CreateTemp(dst, name+".tmp-")
		if err != nil {
			return err
		}
		_, werr := f.Write(data)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(f.Name())
			return err
		}
		if err := os.Rename(f.Name(), filepath.Join(dst, name)); err != nil {
			os.Remove(f.Name())
			return err
		}
	}
	return nil
}
