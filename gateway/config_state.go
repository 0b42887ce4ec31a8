package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/pgroles"
)

// Where each core keeps its task board (docs/reference/core.md#work-tracking: "under the gateway each
// principal has its own board by default; an operator can configure a
// shared board for a team"). The cores open the board themselves, in
// their own process, which Landlock does not confine (only the commands
// they start are): the board tools reach the file wherever it is, while
// the principal's commands and file tools reach it only if it lies in a
// directory they are allowed.
//
//   - --tasks-db PATH on the gateway: every core uses PATH (a team's board).
//     A postgres:// URL puts that board on PostgreSQL, shared by every
//     gateway given the same URL; --tasks-db-password-file goes with it.
//   - --tasks-db postgres://... with --tasks-db-per-principal: each
//     principal's own role and schema in that database, provisioned by
//     the gateway as the URL's role (gateway/pgroles); cores get the
//     role's URL and password (roleOf), never the operator's.
//   - --tasks-db or BORIS_TASKS_DB given to the cores by the operator (after
//     "--", or in the gateway's environment): that, as before; "~" is the
//     core's HOME, so "~/..." is per principal under --workdir-template.
//   - otherwise an authenticated principal's board is
//     BOARDS/NAME/boris.db, BOARDS being --state-dir's boards directory
//     and NAME the principal's directory-safe name (sanitizeSubject: one
//     path element, distinct for distinct principals), and the boards
//     directory is denied to every core's file tools. With
//     --workdir-template too: a board is Boris's own state, kept outside
//     every tree a principal can write (docs/reference/security.md).
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
	if dirs := launch.EnvValue(environ, "STATE_DIRECTORY"); dirs != "" {
		first, _, _ := strings.Cut(dirs, ":")
		return first
	}
	if home := launch.EnvValue(environ, "HOME"); home != "" {
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

// sharedTasksDB is --tasks-db: a PostgreSQL URL as it is, a file made
// absolute with its directory's links resolved (board.ExpandPath), or "".
// A URL of another scheme is refused.
func (c *Config) sharedTasksDB() (string, error) {
	if c.TasksDB == "" {
		return "", nil
	}
	if err := board.CheckTarget(c.TasksDB); err != nil {
		return "", usage("invalid value for --tasks-db (BORIS_GATEWAY_TASKS_DB): %v", err)
	}
	if board.IsPostgres(c.TasksDB) {
		return c.TasksDB, nil
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

// provisionTimeout bounds the gateway's work on the database for one
// principal's role (--tasks-db-per-principal), and its preparation at
// start.
const provisionTimeout = 30 * time.Second

// principalRoles is the registry of principals' PostgreSQL roles when
// --tasks-db-per-principal asks for them (nil otherwise), its database
// prepared: the operator's URL is --tasks-db (shared, as sharedTasksDB
// returned it) with password file pgpass. Cores given a board of the
// operator's choosing after "--" (--tasks-db or its password file) would
// not be kept apart by the database: refused (roleOf removes the same
// settings from the cores' environment).
func (c *Config) principalRoles(ctx context.Context, shared, pgpass string) (*pgroles.Registry, error) {
	if !c.TasksDBPerPrincipal {
		return nil, nil
	}
	switch {
	case !board.IsPostgres(shared):
		return nil, usage("--tasks-db-per-principal needs a postgres:// --tasks-db (the operator's role, which provisions the principals'); on SQLite each principal already has its own board without --tasks-db")
	case c.Auth == "none":
		return nil, usage("--tasks-db-per-principal needs authentication: with --auth none there is one principal")
	case launch.HasFlag(c.CoreArgs, "tasks-db") || launch.HasFlag(c.CoreArgs, "tasks-db-password-file"):
		return nil, usage("--tasks-db-per-principal gives each core its own board: drop --tasks-db and --tasks-db-password-file after --")
	}
	ctx, cancel := context.WithTimeout(ctx, provisionTimeout)
	defer cancel()
	r, err := pgroles.Open(ctx, shared, board.PGOptions{PasswordFile: pgpass})
	if err != nil {
		return nil, fmt.Errorf("--tasks-db-per-principal: %w", err)
	}
	return r, nil
}

// tasksDBPasswordFile is --tasks-db-password-file made absolute (cores
// start in other directories), or "". It is only for a PostgreSQL board.
func (c *Config) tasksDBPasswordFile() (string, error) {
	if c.TasksDBPasswordFile == "" {
		return "", nil
	}
	if !board.IsPostgres(c.TasksDB) {
		return "", usage("--tasks-db-password-file is for a PostgreSQL --tasks-db (postgres://...); a SQLite board has no password")
	}
	abs, err := filepath.Abs(c.TasksDBPasswordFile)
	if err != nil {
		return "", usage("invalid value %q for --tasks-db-password-file: %v", c.TasksDBPasswordFile, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", usage("invalid --tasks-db-password-file: %v", err)
	}
	return abs, nil
}

// minMetricsToken is the shortest --metrics-token-file token accepted, as
// for static tokens.
const minMetricsToken = 16

// dashboardOptions are the dashboard.Options the configuration asks for,
// reading --metrics-token-file.
func (c *Config) dashboardOptions() (dashboard.Options, error) {
	d := dashboard.Options{Operators: dashboard.OperatorKeys(c.DashboardOperators), MetricsOpen: c.MetricsAuth == "none"}
	if c.onePrincipal() {
		d.Operators = append(d.Operators, dashboard.OperatorKeys([]string{generatedSubject})...)
	}
	if c.MetricsTokenFile == "" {
		return d, nil
	}
	b, err := os.ReadFile(c.MetricsTokenFile)
	if err != nil {
		return d, usage("invalid --metrics-token-file: %v", err)
	}
	d.MetricsToken = strings.TrimSpace(string(b))
	if len(d.MetricsToken) < minMetricsToken || strings.ContainsAny(d.MetricsToken, " \t\r\n") {
		return d, usage("invalid --metrics-token-file %s: want one token of at least %d characters without spaces", c.MetricsTokenFile, minMetricsToken)
	}
	return d, nil
}

// warnOpenBoards warns when principals' boards lie where every core's
// commands may read them: no --workdir-template and no --allow-dir
// confine commands to a directory (Landlock grants everything then).
func (c *Config) warnOpenBoards(boards string, environ []string, log *slog.Logger) {
	if boards == "" || c.WorkdirTemplate != "" || launch.HasFlag(c.CoreArgs, "allow-dir") || launch.EnvValue(environ, "BORIS_ALLOW_DIRS") != "" {
		return
	}
	log.Warn("principals' task boards and checkpoint repositories are readable by every core's commands: cores have no --allow-dir; "+
		"use --workdir-template or give cores --allow-dir (after --) outside the state directory", "boards", boards)
}
