// Package workspace provides Boris's workspaces (docs/reference/core.md#workspaces): named
// directories under one root, each its own git repository, into which
// every write made through Boris is committed.
//
// git runs through a Runner the caller supplies, so that the core can run
// it confined like any command: a workspace's .git/config is writable by
// the agent's commands, and git obeys it (filters, fsmonitor), so it must
// not run with more rights than those commands have.
package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mjkoo/boris/internal/gitenv"
	"github.com/mjkoo/boris/internal/safefile"
)

// ErrNotFound is wrapped by every error about a workspace id that names no
// workspace.
var ErrNotFound = errors.New("workspace not found")

// MaxSlug is the longest workspace id.
const MaxSlug = 64

// Slug turns a workspace name into its id: lower case; whitespace and
// characters not safe in a file name become "-"; runs of "-" collapse;
// leading and trailing "-" and "." go; at most MaxSlug characters. It
// fails when nothing is left.
func Slug(name string) (string, error) {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		safe := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_'
		if !safe {
			if !dash {
				sb.WriteByte('-')
			}
			dash = true
			continue
		}
		sb.WriteRune(r)
		dash = false
	}
	slug := trimSlug(sb.String())
	if r := []rune(slug); len(r) > MaxSlug {
		slug = trimSlug(string(r[:MaxSlug]))
	}
	if slug == "" {
		return "", fmt.Errorf("workspace name %q has no letters or digits to make an id from", name)
	}
	return slug, nil
}

func trimSlug(s string) string { return strings.Trim(s, "-.") }

// ValidID reports whether id could be a workspace id (what Slug makes, or
// that with a numeric suffix): never a path, never "." or "..".
func ValidID(id string) bool {
	s, err := Slug(id)
	return err == nil && s == id
}

// Runner runs git with args in dir and returns its stdout; the error of a
// failed git carries what it printed.
type Runner func(ctx context.Context, dir string, args ...string) ([]byte, error)

// Root is the directory holding the workspaces.
type Root struct {
	dir string
	git Runner
	mu  sync.Mutex // one commit at a time per core; git's index.lock across cores
}

// Open makes root (if needed) and returns it. root must be absolute; it
// is used with its symlinks resolved.
func Open(root string, git Runner) (*Root, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("workspaces root %q: not an absolute path", root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("workspaces root: %w", err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("workspaces root: %w", err)
	}
	return &Root{dir: real, git: git}, nil
}

// Dir returns the root's real path.
func (r *Root) Dir() string { return r.dir }

// Workspace is one workspace.
type Workspace struct {
	ID  string `json:"workspaceId"`
	Dir string `json:"path"`
}

// Create makes a workspace for name: the directory named by its slug, or
// the slug with "-2", "-3", ... when taken (made atomically, so creates
// racing for one name get distinct ids), with a git repository inside.
func (r *Root) Create(ctx context.Context, name string) (*Workspace, error) {
	base, err := Slug(name)
	if err != nil {
		return nil, err
	}
	for n := 1; n < 10000; n++ {
		id := base
		if n > 1 {
			suffix := "-" + strconv.Itoa(n)
			id = trimSlug(string([]rune(base)[:min(len([]rune(base)), MaxSlug-len(suffix))])) + suffix
		}
		dir := filepath.Join(r.dir, id)
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create workspace: %w", err)
		}
		ws := &Workspace{ID: id, Dir: dir}
		if _, err := r.git(ctx, dir, "init", "-q", "--template="); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("create workspace %s: %w", id, err)
		}
		if err := r.attributes(ws); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("create workspace %s: %w", id, err)
		}
		return ws, nil
	}
	return nil, fmt.Errorf("create workspace: every id for %q is taken", name)
}

// Get returns the workspace id names.
func (r *Root) Get(id string) (*Workspace, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w: %q is not a workspace id (ids are what workspace_create returned)", ErrNotFound, id)
	}
	dir := filepath.Join(r.dir, id)
	// A directory, not a link to one, holding a .git directory.
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: no workspace %q (workspace_list lists them)", ErrNotFound, id)
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: no workspace %q (workspace_list lists them)", ErrNotFound, id)
	}
	return &Workspace{ID: id, Dir: dir}, nil
}

// keep creates the empty .gitkeep in the directory rel of the workspace
// at dir, following no link and never opening a file already there (a
// command may have planted a link since the directory was found empty).
func keep(dir, rel string) error {
	d, err := safefile.OpenDir(dir, filepath.ToSlash(filepath.Clean(rel)), false, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	f, err := d.OpenFile(".gitkeep", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil // something appeared there: the directory is kept anyway
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// attributes writes the workspace repository's info/attributes (without
// following links): committed bytes are the file's bytes, and no filter
// or diff driver the tree's .gitattributes name ever runs.
func (r *Root) attributes(ws *Workspace) error {
	d, err := safefile.OpenDir(r.dir, ws.ID+"/.git/info", true, 0o755)
	if err != nil {
		return fmt.Errorf("open %s/.git/info: %w", ws.ID, err)
	}
	defer d.Close()
	if got, err := d.ReadFile("attributes", int64(len(gitenv.Attributes))); err == nil && string(got) == gitenv.Attributes {
		return nil
	}
	return d.WriteFile("attributes", []byte(gitenv.Attributes), 0o644)
}

// List returns every workspace, sorted by id.
func (r *Root) List() ([]Workspace, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	var out []Workspace
	for _, e := range entries {
		if ws, err := r.Get(e.Name()); err == nil && e.IsDir() {
			out = append(out, *ws)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Commit commits what changed at paths (relative to the workspace, slash
// separated) with message and returns the new commit's hash, or "" when
// nothing changed there. Other changes in the workspace are left as they
// are. An empty directory among paths gets a .gitkeep, so it is kept.
func (r *Root) Commit(ctx context.Context, ws *Workspace, message string, paths ...string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var specs []string
	for _, p := range paths {
		abs := filepath.Join(ws.Dir, filepath.FromSlash(p))
		if entries, err := os.ReadDir(abs); err == nil && len(entries) == 0 {
			if err := keep(ws.Dir, p); err != nil {
				return "", fmt.Errorf("commit: keep empty directory %s: %w", p, err)
			}
		}
		if _, err := os.Lstat(abs); err == nil {
			specs = append(specs, p)
			continue
		}
		// Gone (moved or removed): a path only when git tracked it.
		if out, err := r.retry(ctx, ws.Dir, "ls-files", "-z", "--", p); err == nil && len(out) > 0 {
			specs = append(specs, p)
		}
	}
	if len(specs) == 0 {
		return "", nil
	}
	if err := r.attributes(ws); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if _, err := r.retry(ctx, ws.Dir, append([]string{"add", "-A", "--"}, specs...)...); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if _, err := r.retry(ctx, ws.Dir, append(append(append([]string{"diff", "--cached", "--quiet"}, gitenv.DiffArgs...), "--"), specs...)...); err == nil {
		return "", nil // nothing staged: the write changed nothing
	}
	args := append([]string{"commit", "-q", "--no-verify", "-m", message, "--"}, specs...)
	if _, err := r.retry(ctx, ws.Dir, args...); err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	out, err := r.git(ctx, ws.Dir, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// retry runs git, again for up to two seconds while another process holds
// the repository's index lock.
func (r *Root) retry(ctx context.Context, dir string, args ...string) ([]byte, error) {
	deadline := time.Now().Add(2 * time.Second)
	for {
		out, err := r.git(ctx, dir, args...)
		if err == nil || !strings.Contains(err.Error(), "index.lock") || time.Now().After(deadline) {
			return out, err
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Commit is one entry of a workspace's history.
type Commit struct {
	Commit  string `json:"commit"`
	Author  string `json:"author"`
	Date    string `json:"date"`
	Message string `json:"message"`
}

// History returns the newest limit commits of the workspace, of those
// touching path when it is not empty.
func (r *Root) History(ctx context.Context, ws *Workspace, path string, limit int) ([]Commit, error) {
	args := []string{"log", "-n", strconv.Itoa(limit), "--format=%H%x1f%an <%ae>%x1f%aI%x1f%s%x1e"}
	if path != "" {
		args = append(args, "--", path)
	}
	out, err := r.git(ctx, ws.Dir, args...)
	if err != nil {
		if strings.Contains(err.Error(), "does not have any commits") {
			return nil, nil
		}
		return nil, fmt.Errorf("history: %w", err)
	}
	var log []Commit
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		f := strings.Split(strings.TrimSpace(string(rec)), "\x1f")
		if len(f) == 4 {
			log = append(log, Commit{Commit: f[0], Author: f[1], Date: f[2], Message: f[3]})
		}
	}
	return log, nil
}

// ExecRunner is a Runner that starts git with start (nil: cmd.Start) and
// wraps argv with wrap (nil: as it is), hardened as every git Boris runs
// (package gitenv: no system or global configuration, hooks, fsmonitor,
// external diff, textconv or credential helper), on exactly the
// repository dir/.git with dir as its tree, never one git would find
// above it, and signing as Boris.
func ExecRunner(gitPath string, environ []string, wrap func([]string) []string, start func(*exec.Cmd) error, done func(int)) Runner {
	return func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		argv, env := gitCommand(gitPath, environ, dir, args)
		if wrap != nil {
			argv = wrap(argv)
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.WaitDelay = 5 * time.Second
		startFn := cmd.Start
		if start != nil {
			startFn = func() error { return start(cmd) }
		}
		if err := startFn(); err != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		err := cmd.Wait()
		if done != nil {
			done(cmd.Process.Pid)
		}
		if err != nil {
			return stdout.Bytes(), fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()+" "+stdout.String()))
		}
		return stdout.Bytes(), nil
	}
}

// SpawnRunner returns a Runner that runs git as ExecRunner does, through
// spawn (which runs argv in dir with env and returns its output: a
// sandbox spawner's Run).
func SpawnRunner(gitPath string, environ []string, spawn func(ctx context.Context, argv []string, dir string, env []string) (stdout, stderr []byte, err error)) Runner {
	return func(ctx context.Context, dir string, args ...string) ([]byte, error) {
		argv, env := gitCommand(gitPath, environ, dir, args)
		stdout, stderr, err := spawn(ctx, argv, dir, env)
		if err != nil {
			return stdout, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(string(stderr)+" "+string(stdout)))
		}
		return stdout, nil
	}
}

// gitCommand is the argv and environment of git args on the repository
// dir/.git with dir as its tree (see ExecRunner).
func gitCommand(gitPath string, environ []string, dir string, args []string) (argv, env []string) {
	argv = append(append([]string{gitPath}, gitenv.Args...), args...)
	env = gitenv.Env(environ, "GIT_DIR="+filepath.Join(dir, ".git"), "GIT_WORK_TREE="+dir, "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return argv, env
}
