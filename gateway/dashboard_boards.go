package gateway

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjkoo/boris/core/board"
)

// Where each core keeps its task board (SPEC §11: "under the gateway each
// principal has its own board by default; an operator can configure a
// shared board for a team"). The cores open the board themselves, in
// their own process, which Landlock does not confine (only the commands
// they start are): the board tools reach the file wherever it is, while
// the principal's commands and file tools reach it only if it lies in a
// directory they are allowed.
//
//   - --tasks-db PATH on the gateway: every core uses PATH (a team's board).
//   - --tasks-db or BORIS_TASKS_DB given to the cores by the operator (after
//     "--", or in the gateway's environment): that, as before; "~" is the
//     core's HOME, so "~/..." is per principal under --workdir-template.
//   - otherwise an authenticated principal's board is
//     BOARDS/NAME/boris.db, BOARDS being --state-dir's boards directory
//     and NAME the principal's directory-safe name (sanitizeSubject: one
//     path element, distinct for distinct principals), and the boards
//     directory is denied to every core's file tools. With
//     --workdir-template too: a board is Boris's own state, kept outside
//     every tree a principal can write (SPEC §6).
//   - without authentication (--auth none) there is one principal, and
//     its board is the gateway user's ~/.boris/boris.db, the CLI's default.
//     So it is when the token generated at start-up is the only
//     credential (make run): its holder is the one principal, the person
//     who started the gateway, and its cores keep their default state, as
//     boris run by a client would. No other principal's board or
//     checkpoints exist for its commands to read.

// boardsDirName is the directory of principals' boards in --state-dir.
const boardsDirName = "boards"

// principalsDirName is the directory in --state-dir that holds each
// principal's core state directory (its --state-dir: checkpoint
// repositories), PRINCIPALS/NAME, outside the principal's own directory.
const principalsDirName = "principals"

// stateDir is the gateway's state directory: --state-dir, else systemd's
// $STATE_DIRECTORY (StateDirectory=), else ~/.boris/gateway; "" when
// there is no HOME to put it in.
func (c *Config) stateDir(environ []string) string {
	if c.StateDir != "" {
		abs, err := filepath.Abs(c.StateDir)
		if err == nil {
			return abs
		}
		return c.StateDir
	}
	if dirs := envValue(environ, "STATE_DIRECTORY"); dirs != "" {
		first, _, _ := strings.Cut(dirs, ":")
		return first
	}
	if home := envValue(environ, "HOME"); home != "" {
		return filepath.Join(home, ".boris", "gateway")
	}
	return ""
}

// boardsDir creates and returns the directory of principals' boards, or ""
// when the cores never use it: a shared board, a template, or no state
// directory.
func (c *Config) boardsDir(environ []string) (string, error) {
	state := c.stateDir(environ)
	if c.TasksDB != "" || state == "" || c.Auth == "none" || (c.onePrincipal() && c.WorkdirTemplate == "") {
		return "", nil
	}
	dir := filepath.Join(state, boardsDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", usage("cannot create the principals' task boards directory (--state-dir): %v", err)
	}
	// Boards are opened without following links (core/board): the
	// gateway's own directory's are resolved once, here.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", usage("cannot resolve the principals' task boards directory (--state-dir): %v", err)
	}
	return real, nil
}

// principalsDir creates and returns the directory of principals' core
// state directories, or "" when cores keep their own default: no
// authentication and no --workdir-template (one principal, the gateway's
// user), or no state directory.
func (c *Config) principalsDir(environ []string) (string, error) {
	state := c.stateDir(environ)
	if state == "" || ((c.Auth == "none" || c.onePrincipal()) && c.WorkdirTemplate == "") {
		return "", nil
	}
	dir := filepath.Join(state, principalsDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", usage("cannot create the principals' state directory (--state-dir): %v", err)
	}
	return dir, nil
}

// stateOf returns the core arguments that give p its own state directory
// outside its working directory (creating it), or none where the
// operator set one for every core or cores keep their default.
func (h *Handler) stateOf(p Principal, environ []string) ([]string, error) {
	if _, ok := flagValue(h.opts.CoreArgs, "state-dir"); ok || envValue(environ, "BORIS_STATE_DIR") != "" {
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

// sharedTasksDB is --tasks-db made absolute, its directory's links
// resolved (board.ExpandPath), or "".
func (c *Config) sharedTasksDB() (string, error) {
	if c.TasksDB == "" {
		return "", nil
	}
	abs, err := filepath.Abs(c.TasksDB)
	if err == nil {
		abs, err = board.ExpandPath(abs, "")
	}
	if err != nil {
		return "", usage("invalid value %q for --tasks-db: %v", c.TasksDB, err)
	}
	return abs, nil
}

// boardOf returns the file of p's task board and the core arguments that
// put it there (none where the core's own default already does). environ
// is the cores' environment before launchFor sets HOME.
func (h *Handler) boardOf(p Principal, environ []string) (path string, args []string) {
	if h.opts.TasksDB != "" {
		return h.opts.TasksDB, []string{"--tasks-db", h.opts.TasksDB}
	}
	home := envValue(environ, "HOME")
	if p.Workdir != "" {
		home = p.Workdir
	}
	if v, ok := flagValue(h.opts.CoreArgs, "tasks-db"); ok {
		return board.ResolvePath(v, home), nil
	}
	if v := envValue(environ, "BORIS_TASKS_DB"); v != "" {
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

// envValue is the value of name in environ, or "".
func envValue(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// flagValue is the last value args give --flag (or -flag, with or without
// =), as the core's flag parser reads it.
func flagValue(args []string, flag string) (string, bool) {
	var value string
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			if a == "--" {
				break
			}
			continue
		}
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != flag {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			v = args[i]
		}
		value, found = v, true
	}
	return value, found
}
