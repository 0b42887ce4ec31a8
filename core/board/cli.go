package board

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mjkoo/boris/internal/flagenv"
	"github.com/mjkoo/boris/internal/plural"
)

// cliUsage is `boris tasks --help`.
const cliUsage = `Usage: boris tasks [--tasks-db PATH|URL] [--json] COMMAND [ARGS]

The work-tracking board that agents reach through create_task, list_tasks, ...
Commands:
  add DESCRIPTION [--priority 1-5] [--parent ID] [--context TEXT]   write a task down
  list [--status STATUS] [--ready] [--parent ID] [--limit N]         list tasks (open first, by priority)
  show ID                                                            one task in full, with its blockers
  start ID                                                           mark a task in_progress
  done ID [--result TEXT]                                            mark a task done
  cancel ID [--result TEXT]                                          mark a task cancelled (kept on the board)
  status ID STATUS [--result TEXT]                                   set any status: pending, in_progress, done, cancelled
  delete ID                                                          delete a task (refused while it blocks others or has subtasks)
  block ID BLOCKER_ID                                                ID waits for BLOCKER_ID
  unblock ID BLOCKER_ID                                              ID no longer waits for BLOCKER_ID

Flags go before or after the arguments; "--" ends them (for a description starting with "-").
  --tasks-db PATH|URL          the board (env BORIS_TASKS_DB, default ~/.boris/boris.db): a SQLite file,
                               or postgres://USER@HOST/DB?sslmode=... for a board shared by several hosts
  --tasks-db-password-file F   the PostgreSQL role's password, first line of F (env BORIS_TASKS_DB_PASSWORD_FILE;
                               else passfile=, PGPASSFILE, ~/.pgpass or PGPASSWORD, as libpq)
  --json            print JSON instead of text
Exit status: 0 done, 1 refused or not found, 2 bad usage.
`

// commandNames lists the commands for usage errors.
const commandNames = "add, list, show, start, done, cancel, status, delete, block or unblock"

// cli holds one `boris tasks` invocation's settings.
type cli struct {
	path   string
	pgpass string // --tasks-db-password-file
	json   bool
	stdout io.Writer
}

// CLI runs `boris tasks` with args (those after "tasks"). Usage errors are
// *flagenv.UsageError (exit status 2); a refusal or a missing task is any
// other error (1); --help is flagenv.ErrHelp (0).
func CLI(ctx context.Context, args, environ []string, stdout io.Writer) error {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	c := &cli{path: DefaultPath, stdout: stdout}
	if v := env["BORIS_TASKS_DB"]; v != "" {
		c.path = v
	}
	c.pgpass = env["BORIS_TASKS_DB_PASSWORD_FILE"]
	fs := c.flags("tasks")
	rest, err := parse(fs, args, true)
	if errors.Is(err, flagenv.ErrHelp) {
		fmt.Fprint(stdout, cliUsage)
	}
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usageErr("a command is missing: %s (see boris tasks --help)", commandNames)
	}
	run, ok := map[string]func(context.Context, []string) error{
		"add": c.add, "list": c.list, "show": c.show, "start": c.start, "done": c.done, "cancel": c.cancel,
		"status": c.status, "delete": c.delete, "block": c.block, "unblock": c.unblock,
	}[rest[0]]
	if !ok {
		return usageErr("unknown command %q: want %s", rest[0], commandNames)
	}
	c.path, err = ExpandPath(c.path, env["HOME"])
	if err != nil {
		return usageErr("--tasks-db: %v", err)
	}
	err = run(ctx, rest[1:])
	if errors.Is(err, flagenv.ErrHelp) {
		fmt.Fprint(stdout, cliUsage)
	}
	return err
}

// flags is a flag set with the flags every command takes.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.path, "tasks-db", c.path, "")
	fs.StringVar(&c.pgpass, "tasks-db-password-file", c.pgpass, "")
	fs.BoolVar(&c.json, "json", c.json, "")
	return fs
}

// parse parses args, flags and positional arguments in any order, and
// returns the positional ones. With atCommand it stops at the first
// positional argument, the command, and returns it with everything after
// it: the command's flags are the command's to parse.
func parse(fs *flag.FlagSet, args []string, atCommand bool) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, flagenv.ErrHelp
		}
		if err != nil {
			return nil, usageErr("%v (see boris tasks --help)", err)
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
		if atCommand {
			return append(pos, args...), nil
		}
	}
}

// args parses a command's arguments, which must be n positional ones.
func (c *cli) args(fs *flag.FlagSet, args []string, n int, what string) ([]string, error) {
	pos, err := parse(fs, args, false)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		return nil, usageErr("%s: want %s, got %s", fs.Name(), what, plural.S(len(pos), "argument"))
	}
	return pos, nil
}

// open opens the board the invocation names.
func (c *cli) open(ctx context.Context) (Board, error) {
	return OpenBoard(ctx, c.path, PGOptions{PasswordFile: c.pgpass})
}

// print writes text, or v as JSON with --json.
func (c *cli) print(text string, v any) error {
	if c.json {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(c.stdout, text)
	return err
}

func (c *cli) add(ctx context.Context, args []string) error {
	fs := c.flags("add")
	var n NewTask
	fs.IntVar(&n.Priority, "priority", DefaultPriority, "")
	fs.StringVar(&n.ParentID, "parent", "", "")
	fs.StringVar(&n.Context, "context", "", "")
	pos, err := c.args(fs, args, 1, "one DESCRIPTION (quote it)")
	if err != nil {
		return err
	}
	if n.Priority < MinPriority || n.Priority > MaxPriority {
		return usageErr("--priority %d: want %d (most urgent) to %d (least)", n.Priority, MinPriority, MaxPriority)
	}
	n.Description = pos[0]
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := s.Create(ctx, n)
	if err != nil {
		return err
	}
	return c.print("Created "+Line(t), t)
}

func (c *cli) list(ctx context.Context, args []string) error {
	fs := c.flags("list")
	var f Filter
	var status string
	fs.StringVar(&status, "status", "", "")
	fs.BoolVar(&f.Ready, "ready", false, "")
	fs.StringVar(&f.ParentID, "parent", "", "")
	fs.IntVar(&f.Limit, "limit", DefaultLimit, "")
	if _, err := c.args(fs, args, 0, "no arguments"); err != nil {
		return err
	}
	f.Status = Status(status)
	if status != "" && !f.Status.Valid() {
		return usageErr("--status %q: want one of %s", status, strings.Join(Statuses, ", "))
	}
	if f.Limit < 1 || f.Limit > MaxLimit {
		return usageErr("--limit %d: want 1 to %d", f.Limit, MaxLimit)
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	tasks, more, err := s.List(ctx, f)
	if err != nil {
		return err
	}
	if tasks == nil {
		tasks = []Task{}
	}
	return c.print(List(tasks, more), struct {
		Tasks []Task `json:"tasks"`
		More  bool   `json:"more"`
	}{tasks, more})
}

func (c *cli) show(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("show"), args, 1, "one task ID")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := s.GetBlockers(ctx, pos[0])
	if err != nil {
		return err
	}
	text := Detail(b.Task)
	if len(b.BlockedBy)+len(b.Blocks) > 0 {
		text += "\n" + strings.SplitN(BlockersText(b), "\n", 2)[1]
	}
	return c.print(text, b)
}

func (c *cli) start(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("start"), args, 1, "one task ID")
	if err != nil {
		return err
	}
	return c.setStatus(ctx, pos[0], InProgress, "")
}

func (c *cli) done(ctx context.Context, args []string) error {
	fs := c.flags("done")
	result := fs.String("result", "", "")
	pos, err := c.args(fs, args, 1, "one task ID")
	if err != nil {
		return err
	}
	return c.setStatus(ctx, pos[0], Done, *result)
}

func (c *cli) cancel(ctx context.Context, args []string) error {
	fs := c.flags("cancel")
	result := fs.String("result", "", "")
	pos, err := c.args(fs, args, 1, "one task ID")
	if err != nil {
		return err
	}
	return c.setStatus(ctx, pos[0], Cancelled, *result)
}

func (c *cli) status(ctx context.Context, args []string) error {
	fs := c.flags("status")
	result := fs.String("result", "", "")
	pos, err := c.args(fs, args, 2, "ID and STATUS")
	if err != nil {
		return err
	}
	st := Status(pos[1])
	if !st.Valid() {
		return usageErr("status %q: want one of %s", pos[1], strings.Join(Statuses, ", "))
	}
	return c.setStatus(ctx, pos[0], st, *result)
}

// setStatus sets task id's status, and its result when result is not
// empty, and prints the task as it now is.
func (c *cli) setStatus(ctx context.Context, id string, st Status, result string) error {
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	ch := Change{Status: &st}
	if result != "" {
		ch.Result = &result
	}
	t, err := s.Update(ctx, id, ch)
	if err != nil {
		return err
	}
	return c.print(statusVerbs[st]+" "+Line(t), t)
}

// statusVerbs say what setStatus did, by the status set.
var statusVerbs = map[Status]string{Pending: "Reopened", InProgress: "Started", Done: "Done", Cancelled: "Cancelled"}

func (c *cli) delete(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("delete"), args, 1, "one task ID")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := s.Delete(ctx, pos[0])
	if err != nil {
		return err
	}
	return c.print("Deleted "+Line(t), t)
}

func (c *cli) block(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("block"), args, 2, "ID and BLOCKER_ID")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, added, err := s.AddBlocker(ctx, pos[0], pos[1])
	if err != nil {
		return err
	}
	text := t.ID + " now waits for " + CanonicalID(pos[1])
	if !added {
		text = t.ID + " already waited for " + CanonicalID(pos[1])
	}
	return c.print(text+"\n"+Line(t), blockerJSON{t, added})
}

func (c *cli) unblock(ctx context.Context, args []string) error {
	pos, err := c.args(c.flags("unblock"), args, 2, "ID and BLOCKER_ID")
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	t, err := s.RemoveBlocker(ctx, pos[0], pos[1])
	if err != nil {
		return err
	}
	return c.print(t.ID+" no longer waits for "+CanonicalID(pos[1])+"\n"+Line(t), blockerJSON{t, true})
}

// blockerJSON is block's and unblock's --json output, as add_blocker's.
type blockerJSON struct {
	Task    Task `json:"task"`
	Changed bool `json:"changed"`
}

func usageErr(format string, args ...any) error {
	return &flagenv.UsageError{Msg: fmt.Sprintf(format, args...)}
}
