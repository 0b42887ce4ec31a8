package gateway

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/gateway/launch"
)

// Build caches. A principal's commands build (go build, npm install), and
// the tools they run keep caches: Go's build and module caches, npm's,
// and whatever else follows XDG_CACHE_HOME. Inherited from the gateway's
// environment these would be the operator's caches, which a confined
// command cannot write (an agent's go build fails with "permission
// denied") and which principals must never share. So each principal's
// cores get caches of their own, CACHES/NAME, beside its state directory
// and outside its working tree (the checkpoints never record them), and
// granted to its commands with --sandbox-write.

// cachesDirName is the directory in --state-dir that holds each
// principal's build caches, CACHES/NAME.
const cachesDirName = "caches"

// cachesDir creates and returns the directory of principals' build
// caches: where principals have state of their own (see principalsDir),
// or "" (cores keep the environment's caches: one principal, the
// gateway's user).
func (c *Config) cachesDir(environ []string) (string, error) {
	state := c.stateDir(environ)
	if state == "" || ((c.Auth == "none" || c.onePrincipal()) && c.WorkdirTemplate == "") {
		return "", nil
	}
	dir := filepath.Join(state, cachesDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", usage("cannot create the principals' build caches directory (--state-dir): %v", err)
	}
	// Landlock rules name real inodes; resolve the links once, here.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", usage("cannot resolve the principals' build caches directory (--state-dir): %v", err)
	}
	return real, nil
}

// cacheEnv are the environment variables that put the caches of the
// tools a principal's commands run under dir.
func cacheEnv(dir string) []string {
	return []string{
		"XDG_CACHE_HOME", dir,
		"GOCACHE", filepath.Join(dir, "go-build"),
		"GOMODCACHE", filepath.Join(dir, "go-mod"),
		// npm reads its settings' names in any case: set both spellings.
		"npm_config_cache", filepath.Join(dir, "npm"),
		"NPM_CONFIG_CACHE", filepath.Join(dir, "npm"),
	}
}

// homeEnv are the environment variables that follow HOME, set for a
// principal whose HOME is home (--workdir-template): Go's GOPATH and the
// XDG directories, at their defaults under home, never the operator's.
func homeEnv(home string) []string {
	return []string{
		"GOPATH", filepath.Join(home, "go"),
		"XDG_CONFIG_HOME", filepath.Join(home, ".config"),
		"XDG_DATA_HOME", filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME", filepath.Join(home, ".local", "state"),
	}
}

// cachesOf creates p's build caches directory and returns the core
// arguments and environment that give them to its commands: CACHES/NAME
// where the gateway keeps principals' caches, else (--workdir-template
// without a state directory) WORKDIR/.cache; none for the gateway's own
// user.
func (h *starter) cachesOf(p Principal, args, environ []string) ([]string, []string, error) {
	var dir string
	switch {
	case h.opts.CachesDir != "":
		dir = filepath.Join(h.opts.CachesDir, principalDirName(p))
	case p.Workdir != "":
		dir = filepath.Join(p.Workdir, ".cache")
	default:
		return args, environ, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create the build caches of %s: %w", p.Subject, err)
	}
	if h.opts.CachesDir != "" {
		args = launch.ListFlag(args, environ, "sandbox-write", "BORIS_SANDBOX_WRITE", dir)
	}
	return args, launch.SetEnv(environ, cacheEnv(dir)...), nil
}
