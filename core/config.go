package core

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/mjkoo/boris/core/sandbox"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Config is the core's configuration (SPEC §2.1). Every field is a flag and
// a BORIS_* environment variable; the flag wins over the environment, which
// wins over the default.
type Config struct {
	Workdir               string       `flag:"workdir" env:"BORIS_WORKDIR" envDefault:"." help:"initial working directory of the shell and of relative paths"`
	AllowDirs             []string     `flag:"allow-dir" env:"BORIS_ALLOW_DIRS" help:"directory file tools may touch (repeatable or comma-separated; none = all)"`
	DenyDirs              []string     `flag:"deny-dir" env:"BORIS_DENY_DIRS" help:"path or doublestar pattern (e.g. **/.env) always refused; beats allow (repeatable)"`
	Timeout               int          `flag:"timeout" env:"BORIS_TIMEOUT" envDefault:"120" help:"default bash timeout in seconds"`
	MaxFileSize           flagenv.Size `flag:"max-file-size" env:"BORIS_MAX_FILE_SIZE" envDefault:"10MB" help:"largest file view, create_file and str_replace handle and grep searches (10MB, 512KB or bytes)"`
	DisableTools          []string     `flag:"disable-tools" env:"BORIS_DISABLE_TOOLS" help:"tool names not to register (repeatable; bash also removes the task tools)"`
	ReadOnly              bool         `flag:"read-only" env:"BORIS_READ_ONLY" envDefault:"false" help:"register no writing tools (str_replace_editor keeps only view)"`
	AnthropicCompat       bool         `flag:"anthropic-compat" env:"BORIS_ANTHROPIC_COMPAT" envDefault:"false" help:"expose the tool schemas Claude models are trained on"`
	BackgroundTaskLimit   int          `flag:"background-task-limit" env:"BORIS_BACKGROUND_TASK_LIMIT" envDefault:"10" help:"background tasks running at once"`
	BackgroundTaskTimeout int          `flag:"background-task-timeout" env:"BORIS_BACKGROUND_TASK_TIMEOUT" envDefault:"0" help:"safety-net lifetime of a background task in seconds (0 = none)"`
	Sandbox               string       `flag:"sandbox" env:"BORIS_SANDBOX" envDefault:"auto" help:"confine every command with Landlock: auto (when the kernel supports it), required (refuse to start without it) or off"`
	SandboxRead           []string     `flag:"sandbox-read" env:"BORIS_SANDBOX_READ" help:"extra directory commands may read (repeatable or comma-separated)"`
	SandboxWrite          []string     `flag:"sandbox-write" env:"BORIS_SANDBOX_WRITE" help:"extra directory commands may write (repeatable or comma-separated)"`
	Check                 bool         `flag:"check" help:"check the settings, print what would be enforced as JSON, and exit"`
	LogLevel              string       `flag:"log-level" env:"BORIS_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error (logs go to stderr)"`
	LogFormat             string       `flag:"log-format" env:"BORIS_LOG_FORMAT" envDefault:"text" help:"text or json"`
	Version               bool         `flag:"version" help:"print the version and exit"`
}

// maxTimeoutSeconds mirrors the bash tool's 600000 ms ceiling.
const maxTimeoutSeconds = 600

var command = flagenv.Command{
	Name:  "boris",
	Usage: "[flags]",
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
		return nil, usage("unexpected argument %q: boris takes only flags (see --help)", rest[0])
	}
	return &cfg, cfg.validate()
}

func (c *Config) validate() error {
	switch {
	case c.Timeout <= 0 || c.Timeout > maxTimeoutSeconds:
		return usage("invalid value %d for --timeout: want seconds between 1 and %d", c.Timeout, maxTimeoutSeconds)
	case c.BackgroundTaskLimit < 0:
		return usage("invalid value %d for --background-task-limit: want 0 or more", c.BackgroundTaskLimit)
	case c.BackgroundTaskTimeout < 0:
		return usage("invalid value %d for --background-task-timeout: want seconds, 0 for none", c.BackgroundTaskTimeout)
	case !slices.Contains([]string{"text", "json"}, c.LogFormat):
		return usage("invalid value %q for --log-format: want text or json", c.LogFormat)
	case !slices.Contains([]string{sandbox.ModeAuto, sandbox.ModeRequired, sandbox.ModeOff}, c.Sandbox):
		return usage("invalid value %q for --sandbox: want auto, required or off", c.Sandbox)
	}
	if _, err := c.level(); err != nil {
		return err
	}
	return c.validateTools()
}

// validateTools checks --disable-tools against every tool name Boris knows,
// so a typo is reported instead of silently leaving a tool enabled.
func (c *Config) validateTools() error {
	known := knownToolNames(c)
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

func (c *Config) disabled(name string) bool {
	if slices.Contains(c.DisableTools, name) {
		return true
	}
	// Background task tools only make sense with the shell (SPEC §2.1).
	isTaskTool := name == "task_output" || name == "task_stop"
	return isTaskTool && slices.Contains(c.DisableTools, "bash")
}

func usage(format string, args ...any) error {
	return &flagenv.UsageError{Msg: fmt.Sprintf(format, args...)}
}
