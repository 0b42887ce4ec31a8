package gateway

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/launch"
)

// launchFor builds the core arguments and environment of principal p: the
// operator's core arguments, the restrictions p's scopes imply added to
// them, the gateway's secrets denied, and with --workdir-template p's own
// directory as working and allowed directory, HOME and TMPDIR (docs/reference/security.md),
// and p's own build caches (cachesOf).
func (h *starter) launchFor(p Principal) (launch.Spec, error) {
	environ := launch.CoreEnv(h.opts.Environ)
	disable, rest := launch.ScopeLists(p.CoreArgs)
	args := append([]string{}, h.opts.CoreArgs...)
	args = launch.ListFlag(args, environ, "disable-tools", "BORIS_DISABLE_TOOLS", disable...)
	args = append(args, rest...)
	denied := slices.Clip(h.opts.Secrets)
	for _, own := range []string{h.opts.BoardsDir, h.opts.PrincipalsDir} {
		if own != "" {
			// Boards and cores' state are reached through their tools only.
			denied = append(denied, own)
		}
	}
	args = launch.ListFlag(args, environ, "deny-dir", "BORIS_DENY_DIRS", denied...)
	db, boardArgs := h.boardOf(p, environ)
	args = append(args, boardArgs...)
	args, environ, err := h.roleOf(p, args, environ)
	if err != nil {
		return launch.Spec{}, err
	}
	stateArgs, err := h.stateOf(p, environ)
	if err != nil {
		return launch.Spec{}, err
	}
	args = append(args, stateArgs...)
	h.obs.SawPrincipal(p.SubjectKey, p.Subject, db)
	if p.Workdir == "" {
		args, environ, err = h.cachesOf(p, args, environ)
		if err != nil {
			return launch.Spec{}, err
		}
		return launch.Spec{Args: args, Env: environ, Owner: p.SubjectKey}, nil
	}
	for _, s := range h.opts.Secrets {
		if s == p.Workdir || strings.HasPrefix(s, p.Workdir+"/") {
			return launch.Spec{}, fmt.Errorf("working directory %s holds the gateway's secret file %s", p.Workdir, s)
		}
	}
	tmp := filepath.Join(p.Workdir, ".tmp")
	for _, dir := range []string{p.Workdir, tmp} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return launch.Spec{}, fmt.Errorf("create working directory: %w", err)
		}
	}
	args = launch.ListFlag(args, environ, "allow-dir", "BORIS_ALLOW_DIRS", p.Workdir)
	args = append(args, "--workdir", p.Workdir)
	environ = launch.SetEnv(environ, append([]string{"HOME", p.Workdir, "TMPDIR", tmp}, homeEnv(p.Workdir)...)...)
	args, environ, err = h.cachesOf(p, args, environ)
	if err != nil {
		return launch.Spec{}, err
	}
	return launch.Spec{Args: args, Env: environ, Owner: p.SubjectKey}, nil
}

// stateOf returns the core arguments that give p its own state directory
// outside its working directory (creating it), or none where the
// operator set one for every core or cores keep their default.
func (h *starter) stateOf(p Principal, environ []string) ([]string, error) {
	if _, ok := launch.FlagValue(h.opts.CoreArgs, "state-dir"); ok || launch.EnvValue(environ, "BORIS_STATE_DIR") != "" {
		return nil, nil
	}
	if h.opts.PrincipalsDir == "" {
		if p.Workdir != "" {
			return nil, fmt.Errorf("no state directory for %s outside its working directory (set --state-dir)", p.Subject)
		}
		return nil, nil
	}
	dir := filepath.Join(h.opts.PrincipalsDir, principalDirName(p))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("create the state directory of %s: %w", p.Subject, err)
	}
	return []string{"--state-dir", dir}, nil
}

// boardOf returns the file of p's task board and the core arguments that
// put it there (none where the core's own default already does). environ
// is the cores' environment before launchFor sets HOME.
func (h *starter) boardOf(p Principal, environ []string) (path string, args []string) {
	if h.opts.Roles != nil {
		return h.opts.Roles.URL(p.SubjectKey), nil // roleOf gives the arguments
	}
	if h.opts.TasksDB != "" {
		args = []string{"--tasks-db", h.opts.TasksDB}
		if h.opts.TasksDBPasswordFile != "" {
			args = append(args, "--tasks-db-password-file", h.opts.TasksDBPasswordFile)
		}
		return h.opts.TasksDB, args
	}
	home := launch.EnvValue(environ, "HOME")
	if p.Workdir != "" {
		home = p.Workdir
	}
	if v, ok := launch.FlagValue(h.opts.CoreArgs, "tasks-db"); ok {
		return board.ResolvePath(v, home), nil
	}
	if v := launch.EnvValue(environ, "BORIS_TASKS_DB"); v != "" {
		return board.ResolvePath(v, home), nil
	}
	if p.SubjectKey == "" || h.opts.BoardsDir == "" {
		return board.ResolvePath(board.DefaultPath, home), nil
	}
	path = filepath.Join(h.opts.BoardsDir, principalDirName(p), "boris.db")
	return path, []string{"--tasks-db", path}
}

// principalDirName is p's directory-safe name (see sanitizeSubject), from
// its SubjectKey: kind NUL subject.
func principalDirName(p Principal) string {
	kind, sub, _ := strings.Cut(p.SubjectKey, "\x00")
	return sanitizeSubject(kind, sub)
}

// roleOf gives p's core its own PostgreSQL role where each principal has
// one (Options.Roles; provisioned now on p's first use): the role's URL
// as --tasks-db and its password as PGPASSWORD, which the core keeps from
// every command it runs (and, being non-dumpable, from their reading its
// /proc/PID/environ). Whatever else in the environment could point a
// core at the operator's credentials or another board is removed.
func (h *starter) roleOf(p Principal, args, environ []string) ([]string, []string, error) {
	if h.opts.Roles == nil {
		return args, environ, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), provisionTimeout)
	defer cancel()
	role, err := h.opts.Roles.Role(ctx, p.SubjectKey, p.Subject)
	if err != nil {
		return nil, nil, err
	}
	environ = slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return operatorDBVar(name)
	})
	environ = launch.SetEnv(environ, "PGPASSWORD", role.Password)
	return append(args, "--tasks-db", role.URL), environ, nil
}

// operatorDBVar reports whether the environment variable name could give
// a core the operator's database credentials or a board other than its
// principal's: libpq's (PGPASSFILE, a service file, a client certificate)
// and the core's own board settings.
func operatorDBVar(name string) bool {
	switch name {
	case "PGPASSWORD", "PGPASSFILE", "PGUSER", "PGSERVICE", "PGSERVICEFILE", "PGSSLCERT", "PGSSLKEY",
		"BORIS_TASKS_DB", "BORIS_TASKS_DB_PASSWORD_FILE":
		return true
	}
	return false
}
