package core

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/lsp"
	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/tools/filesystem"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Config is the core's configuration (docs/reference/core.md#configuration). Every field is a flag and
// a BORIS_* environment variable; the flag wins over the environment, which
// wins over the default.
type Config struct {
	Workdir               string                     `flag:"workdir" env:"BORIS_WORKDIR" envDefault:"." help:"initial working directory of the shell and of relative paths"`
	AllowDirs             []string                   `flag:"allow-dir" env:"BORIS_ALLOW_DIRS" help:"directory file tools may touch (repeatable or comma-separated; none = all)"`
	DenyDirs              []string                   `flag:"deny-dir" env:"BORIS_DENY_DIRS" help:"path or doublestar pattern (e.g. **/.env, **/{.env,secrets}) always refused; beats allow (repeatable or comma-separated; commas inside braces belong to the pattern)"`
	Timeout               int                        `flag:"timeout" env:"BORIS_TIMEOUT" envDefault:"120" min:"1" max:"600" want:"seconds between 1 and 600" help:"default bash timeout in seconds"`
	MaxFileSize           flagenv.Size               `flag:"max-file-size" env:"BORIS_MAX_FILE_SIZE" envDefault:"10MB" help:"largest file view, create_file and str_replace handle and grep searches (10MB, 512KB or bytes)"`
	DisableTools          []string                   `flag:"disable-tools" env:"BORIS_DISABLE_TOOLS" help:"tool names not to register (repeatable; bash also removes the task tools)"`
	ReadOnly              bool                       `flag:"read-only" env:"BORIS_READ_ONLY" envDefault:"false" help:"register no writing tools (str_replace_editor keeps only view)"`
	AnthropicCompat       boristools.AnthropicCompat `flag:"anthropic-compat" env:"BORIS_ANTHROPIC_COMPAT" envDefault:"false" help:"expose the tool schemas Claude models are trained on; alone or true: str_replace_editor; =20250124: str_replace_editor with undo_edit (Claude 3.7); =20250728: str_replace_based_edit_tool (Claude 4)"`
	BackgroundTaskLimit   int                        `flag:"background-task-limit" env:"BORIS_BACKGROUND_TASK_LIMIT" envDefault:"10" min:"0" want:"0 or more" help:"background tasks running at once"`
	BackgroundTaskTimeout int                        `flag:"background-task-timeout" env:"BORIS_BACKGROUND_TASK_TIMEOUT" envDefault:"0" min:"0" want:"seconds, 0 for none" help:"safety-net lifetime of a background task in seconds (0 = none)"`
	Sandbox               string                     `flag:"sandbox" env:"BORIS_SANDBOX" envDefault:"auto" oneof:"auto,required,off" help:"confine every command with Landlock: auto (when the kernel supports it), required (refuse to start without it) or off"`
	SandboxRead           []string                   `flag:"sandbox-read" env:"BORIS_SANDBOX_READ" help:"extra directory commands may read (repeatable or comma-separated)"`
	SandboxWrite          []string                   `flag:"sandbox-write" env:"BORIS_SANDBOX_WRITE" help:"extra directory commands may write (repeatable or comma-separated)"`
	SandboxNet            string                     `flag:"sandbox-net" env:"BORIS_SANDBOX_NET" envDefault:"host" oneof:"host,none,proxy" help:"network of commands: host (the host's, shared), none (a private loopback per session, in PID, IPC and network namespaces of its own) or proxy (none plus HTTP and HTTPS through the egress proxy at --egress-socket, which boris-gateway runs)"`
	EgressSocket          string                     `flag:"egress-socket" env:"BORIS_EGRESS_SOCKET" help:"Unix socket of the egress proxy commands reach the outside through with --sandbox-net proxy (boris-gateway sets it)"`
	Checkpoints           string                     `flag:"checkpoints" env:"BORIS_CHECKPOINTS" envDefault:"on" oneof:"on,off" help:"record every change tool calls make in a shadow git repository, for the history, diff and undo tools: on (when git is on PATH) or off"`
	CheckpointKeep        int                        `flag:"checkpoint-keep" env:"BORIS_CHECKPOINT_KEEP" envDefault:"200" min:"1" want:"1 or more" help:"checkpoints kept per working tree; older ones are pruned"`
	Toolset               string                     `flag:"toolset" env:"BORIS_TOOLSET" envDefault:"boris" oneof:"boris,filesystem,all" help:"tools to expose: boris (bash, view, str_replace, ...), filesystem (the 14 tools of @modelcontextprotocol/server-filesystem, same names and results) or all"`
	WorkspacesRoot        string                     `flag:"workspaces-root" env:"BORIS_WORKSPACES_ROOT" help:"directory of git-versioned workspaces (with --toolset filesystem or all: enables workspace_create, workspace_list, get_commit_history and the filesystem tools' workspaceId parameter); none = off"`
	Extensions            []string                   `flag:"extensions" env:"BORIS_EXTENSIONS" help:"directory of extension tools laid out as an mcp-bash-framework project (repeatable or comma-separated)"`
	StateDir              string                     `flag:"state-dir" env:"BORIS_STATE_DIR" helpDefault:"$XDG_STATE_HOME/boris, else ~/.local/state/boris" help:"directory of Boris's own state (checkpoint repositories; the extension area in ext), always refused to the file tools; boris-gateway gives each principal one outside its directory"`
	TasksDB               string                     `flag:"tasks-db" env:"BORIS_TASKS_DB" envDefault:"~/.boris/boris.db" help:"the work-tracking board (create_task, list_tasks, ... and boris tasks), shared by every process that names it; opened on first use: a SQLite file, or postgres://USER@HOST/DB?sslmode=... (a board shared by several hosts, its password never in the URL)"`
	TasksDBPasswordFile   string                     `flag:"tasks-db-password-file" env:"BORIS_TASKS_DB_PASSWORD_FILE" help:"file whose first line is the PostgreSQL role's password for a postgres:// --tasks-db (else passfile=, PGPASSFILE, ~/.pgpass or PGPASSWORD, as libpq); refused to the file tools"`
	Diagnostics           string                     `flag:"diagnostics" env:"BORIS_DIAGNOSTICS" envDefault:"auto" oneof:"auto,off" help:"after every edit, the problems it introduced or fixed, from a language server (gopls, pyright-langserver, typescript-language-server): auto (when the file's server is found) or off"`
	DiagnosticsWait       time.Duration              `flag:"diagnostics-wait" env:"BORIS_DIAGNOSTICS_WAIT" envDefault:"1.5s" help:"how long an edit's result waits for its diagnostics (later ones come with the next call's result), 10ms to 1m"`
	LSP                   []string                   `flag:"lsp" env:"BORIS_LSP" help:"language server of a language, LANG=COMMAND with LANG go, python or typescript, e.g. go=/opt/bin/gopls (repeatable or comma-separated; default: gopls, pyright-langserver --stdio, typescript-language-server --stdio on PATH)"`
	Check                 bool                       `flag:"check" help:"check the settings, print what would be enforced as JSON, and exit"`
	LogLevel              string                     `flag:"log-level" env:"BORIS_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error (logs go to stderr)"`
	LogFormat             string                     `flag:"log-format" env:"BORIS_LOG_FORMAT" envDefault:"text" oneof:"text,json" help:"text or json"`
	Version               bool                       `flag:"version" help:"print the version and exit"`
}

var command = flagenv.Command{
	Name:  "boris",
	Usage: "[flags]\n       boris tasks COMMAND ... (the work-tracking board's CLI: boris tasks --help)",
	Synopsis: "Boris is a stdio MCP server giving an AI agent a coding workstation: bash with background\n" +
		"tasks, view, str_replace, create_file, grep and glob, with path scoping. An MCP client starts it\n" +
		"as a child process; boris-gateway serves it over HTTP.",
}

// ParseConfig reads the configuration from args and environ. Help text goes
// to out. Errors are *flagenv.UsageError or flagenv.ErrHelp.
func ParseConfig(args, environ []string, out io.Writer) (*Config, error) {
	var cfg Config
	rest, err := flagenv.Parse(command, &cfg, args, environ, out)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		var v boristools.AnthropicCompat
		if v.UnmarshalText([]byte(rest[0])) == nil && v != boristools.CompatOn && v != boristools.CompatOff {
			return nil, usage("unexpected argument %q: to pick an editor version write --anthropic-compat=%s (with =)", rest[0], rest[0])
		}
		return nil, usage("unexpected argument %q: boris takes only flags (see --help)", rest[0])
	}
	cfg.TasksDB = board.ResolvePath(cfg.TasksDB, flagenv.Lookup(environ, "HOME"))
	if cfg.TasksDBPasswordFile != "" {
		abs, err := filepath.Abs(cfg.TasksDBPasswordFile)
		if err != nil {
			return nil, usage("invalid value %q for --tasks-db-password-file: %v", cfg.TasksDBPasswordFile, err)
		}
		cfg.TasksDBPasswordFile = abs
	}
	if err := cfg.resolveStateDir(environ); err != nil {
		return nil, err
	}
	return &cfg, cfg.validate()
}

// resolveStateDir makes --state-dir absolute, or fills in its default:
// $XDG_STATE_HOME/boris, else ~/.local/state/boris ("" when neither
// variable is set: then checkpoints are off).
func (c *Config) resolveStateDir(environ []string) error {
	if c.StateDir != "" {
		abs, err := board.ExpandPath(c.StateDir, flagenv.Lookup(environ, "HOME"))
		if err != nil {
			return usage("invalid value %q for --state-dir: %v", c.StateDir, err)
		}
		c.StateDir = abs
		return nil
	}
	if x := flagenv.Lookup(environ, "XDG_STATE_HOME"); filepath.IsAbs(x) {
		c.StateDir = filepath.Join(x, "boris")
	} else if home := flagenv.Lookup(environ, "HOME"); filepath.IsAbs(home) {
		c.StateDir = filepath.Join(home, ".local", "state", "boris")
	}
	return nil
}

func (c *Config) validate() error {
	// Ranges and choices are checked by flagenv from the struct tags, so
	// errors name the flag or the variable the value came from.
	if _, err := c.level(); err != nil {
		return err
	}
	if err := board.CheckTarget(c.TasksDB); err != nil {
		return usage("invalid value for --tasks-db (BORIS_TASKS_DB): %v", err)
	}
	if c.WorkspacesRoot != "" && !c.selects(filesystem.ID) {
		// Workspaces are the filesystem tools' (docs/reference/core.md#workspaces): view, create_file
		// and str_replace take no workspaceId and commit nothing.
		return usage("--workspaces-root (BORIS_WORKSPACES_ROOT) needs --toolset filesystem or all (BORIS_TOOLSET): " +
			"the filesystem tools are the ones that take workspaceId and commit their writes")
	}
	if c.SandboxNet == "proxy" && c.EgressSocket == "" {
		return usage("--sandbox-net proxy (BORIS_SANDBOX_NET) needs --egress-socket (BORIS_EGRESS_SOCKET), the egress proxy's Unix socket, which boris-gateway runs and sets; without a proxy use --sandbox-net none")
	}
	if c.DiagnosticsWait < 10*time.Millisecond || c.DiagnosticsWait > time.Minute {
		return usage("invalid value %s for --diagnostics-wait (BORIS_DIAGNOSTICS_WAIT): want a duration from 10ms to 1m, such as 1.5s", c.DiagnosticsWait)
	}
	if _, err := lsp.ParseCommands(c.LSP); err != nil {
		return usage("invalid value for --lsp (BORIS_LSP): %v", err)
	}
	return c.validateTools()
}

// validateTools checks --disable-tools against every tool name Boris knows,
// so a typo is reported instead of silently leaving a tool enabled.
func (c *Config) validateTools() error {
	if len(c.DisableTools) == 0 {
		return nil // nothing to check: listing the tools builds every toolset's values
	}
	known := knownToolNames(c)
	if len(c.Extensions) > 0 {
		if tools, _, err := extension.Load(c.Extensions, nil); err == nil {
			for _, t := range tools {
				known = append(known, t.Name)
			}
		}
	}
	for _, name := range c.DisableTools {
		if !slices.Contains(known, name) {
			return usage("invalid value %q for --disable-tools: want one of %s", name, strings.Join(known, ", "))
		}
	}
	return nil
}

func (c *Config) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return l, usage("invalid value %q for --log-level: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// toolsetAll is the --toolset that selects every toolset.
const toolsetAll = "all"

// selects reports whether --toolset selects the toolsets that go with
// under: all selects every one, a toolset's own name its own and those
// under it, and "" is under every value.
func (c *Config) selects(under toolkit.ID) bool {
	return under == "" || c.Toolset == toolsetAll || c.Toolset == string(under)
}

// disabled reports whether --disable-tools names the tool name. The
// tools that run commands, bash's background tasks among them, go with
// bash (leavesOut; docs/reference/core.md#configuration).
func (c *Config) disabled(name string) bool {
	return slices.Contains(c.DisableTools, name)
}

func usage(format string, args ...any) error {
	return &flagenv.UsageError{Msg: fmt.Sprintf(format, args...)}
}
