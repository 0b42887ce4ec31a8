package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/scope"
	"github.com/mjkoo/boris/core/shell"
)

// Main runs boris with the given arguments (without the program name) and
// environment, serving MCP on stdin and stdout until stdin closes or SIGTERM
// or SIGINT arrives. Every child process group is killed before it returns.
// Logs go to stderr only: stdout carries MCP messages and nothing else.
func Main(ctx context.Context, args, environ []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	cfg, err := ParseConfig(args, environ, stdout)
	if err != nil {
		return err
	}
	if cfg.Version {
		fmt.Fprintf(stdout, "boris %s\n", Version)
		return nil
	}
	log, err := cfg.logger(stderr, slog.LevelDebug)
	if err != nil {
		return err
	}
	sdkFloor := slog.LevelWarn
	if cfg.LogLevel == "debug" {
		sdkFloor = slog.LevelDebug
	}
	sdkLog, _ := cfg.logger(stderr, sdkFloor)
	b, err := newBoris(cfg, log, sdkLog)
	if err != nil {
		return err
	}
	defer b.close()

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	// The SDK's Run waits for in-flight calls before returning, so a signal
	// must end the commands those calls are waiting on.
	go func() {
		<-ctx.Done()
		b.shell.Close()
	}()
	log.Info("boris started", "version", Version, "workdir", b.shell.Dir(), "shell", b.shell.Path())
	out := &lockedWriter{w: stdout}
	in := newScreenedReader(stdin, out, cfg.maxLine())
	t := &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1}
	err = b.newServer().Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		err = nil // a signal or a closed stdin is a normal end
	}
	log.Info("boris stopped", "err", err)
	return err
}

// newBoris opens the policy and the shell from cfg.
func newBoris(cfg *Config, log, sdkLog *slog.Logger) (*boris, error) {
	workdir, err := filepath.Abs(cfg.Workdir)
	if err != nil {
		return nil, usage("invalid value %q for --workdir: %v", cfg.Workdir, err)
	}
	if fi, err := os.Stat(workdir); err != nil || !fi.IsDir() {
		return nil, usage("invalid value %q for --workdir: want an existing directory", cfg.Workdir)
	}
	policy, err := scope.New(workdir, cfg.AllowDirs, cfg.DenyDirs)
	if err != nil {
		return nil, usage("invalid --allow-dir or --deny-dir: %v", err)
	}
	sh, err := shell.New(workdir)
	if err != nil {
		policy.Close()
		return nil, fmt.Errorf("start shell: %w", err)
	}
	return &boris{cfg: cfg, policy: policy, shell: sh, log: log, sdkLog: sdkLog}, nil
}

// close kills every process the shell started and releases the policy's roots.
func (b *boris) close() {
	b.shell.Close()
	b.policy.Close()
}

// logger builds the stderr logger cfg asks for, logging nothing below floor.
func (c *Config) logger(w io.Writer, floor slog.Level) (*slog.Logger, error) {
	level, err := c.level()
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: max(level, floor)}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// maxLine bounds one inbound JSON-RPC message: large enough for create_file
// of a file at --max-file-size even when JSON escaping inflates it.
func (c *Config) maxLine() int {
	return max(mcp.DefaultMaxLineLength, int(c.MaxFileSize)*6+1<<20)
}
