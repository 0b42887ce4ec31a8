package test

//lint:file-ignore SA1019 the tests speak to the core as 2025 clients do: logging is deprecated by 2026-07-28, not gone

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The own-state tests (docs/reference/security.md#boriss-own-state, "Boris's own state is never in a
// principal's reach") attack the files the core keeps for itself (the
// checkpoint shadow repository, the task board) as a hostile tenant
// would, through the built binary: by the file tools, by settings planted
// where a command could write them, and by links planted at every file
// the core opens.

// homeCore starts boris as a local user would, allowed their whole home
// directory (which holds the default state directory and board), with
// bash disabled unless args enable it. It returns the core, the home
// directory and the project directory (the working tree).
func homeCore(t *testing.T, args ...string) (*core, string, string) {
	t.Helper()
	home := realTempDir(t)
	proj := filepath.Join(home, "proj")
	writeFile(t, filepath.Join(proj, "a.txt"), "one\n")
	c := startCoreWith(t, coreOptions{
		args: append([]string{"--workdir", proj, "--allow-dir", home}, args...),
		env:  []string{"HOME=" + home, "XDG_STATE_HOME=", "BORIS_STATE_DIR=", "BORIS_TASKS_DB="},
	})
	return c, home, proj
}

// shadowOf returns the one shadow repository under the state directory.
func shadowOf(t *testing.T, state string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(state, "checkpoints", "*"))
	if len(dirs) != 1 {
		t.Fatalf("shadow repositories under %s: got %v, want one", state, dirs)
	}
	return dirs[0]
}

// TestOwnStateRefusedToFileTools is the HIGH case of a principal without
// bash: with create_file alone it rewrote the shadow repository's config
// (diff.external) inside the allowed home directory, and the core's git
// ran it. Every file of the state directory and of the board is now
// refused to every file tool, however it is named.
func TestOwnStateRefusedToFileTools(t *testing.T) {
	c, home, proj := homeCore(t, "--disable-tools", "bash")
	c.ok("create_file", map[string]any{"path": "b.txt", "content": "b\n"})
	c.ok("history", map[string]any{})
	c.ok("create_task", map[string]any{"description": "mine"})
	state := filepath.Join(home, ".local", "state", "boris")
	shadow := shadowOf(t, state)
	rel, _ := filepath.Rel(proj, filepath.Join(shadow, "config"))
	for _, p := range []string{
		filepath.Join(shadow, "config"), rel, filepath.Join(shadow, "info", "attributes"),
		filepath.Join(shadow, "index.lock"), filepath.Join(shadow, "hooks", "post-commit"),
		filepath.Join(state, "other"), filepath.Join(home, ".boris", "boris.db"),
		filepath.Join(home, ".boris", "boris.db-wal"),
	} {
		got := c.fails("ACCESS_DENIED", "create_file", map[string]any{"path": p, "content": "[diff]\n\texternal = sh -c 'touch /tmp/x'\n"})
		if !strings.Contains(got, "Boris's own state") {
			t.Errorf("create_file %s: got %q, want the refusal to say it is Boris's own state", p, got)
		}
		c.fails("ACCESS_DENIED", "view", map[string]any{"path": p})
	}
	if data, _ := os.ReadFile(filepath.Join(shadow, "config")); strings.Contains(string(data), "external") {
		t.Fatalf("shadow config written through a file tool: %q", data)
	}
	out := c.ok("grep", map[string]any{"pattern": "repositoryformatversion", "path": home})
	if strings.Contains(out, "checkpoints") {
		t.Errorf("grep over home: got %q, want nothing of the state directory", out)
	}
}

// TestPlantedGitSettingsRunNothing plants, while a session runs, every
// git setting that runs a program into the shadow repository (as a
// command can where an allowed directory holds the state directory), and
// filters in the tree's .gitattributes; then makes changes, records, diffs
// and undoes. Nothing planted runs, with the sandbox and without it, and
// checkpoints keep working.
func TestPlantedGitSettingsRunNothing(t *testing.T) {
	for _, sandbox := range []string{"auto", "off"} {
		t.Run("sandbox "+sandbox, func(t *testing.T) {
			c, home, proj := homeCore(t, "--sandbox", sandbox)
			bin := realTempDir(t)
			mark := filepath.Join(bin, "ran")
			script := filepath.Join(bin, "evil")
			writeFile(t, script, "#!/bin/sh\necho \"$0 $*\" >> "+mark+"\ncat\n")
			if err := os.Chmod(script, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, hook := range []string{"pre-commit", "post-commit", "reference-transaction", "post-index-change"} {
				if err := os.Symlink(script, filepath.Join(bin, hook)); err != nil {
					t.Fatal(err)
				}
			}
			c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "one", "new_str": "two"})
			c.ok("history", map[string]any{})
			shadow := shadowOf(t, filepath.Join(home, ".local", "state", "boris"))
			evil := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = " + script +
				"\n\thooksPath = " + bin + "\n\tsshCommand = " + script + "\n\tpager = " + script +
				"\n[diff]\n\texternal = " + script + "\n[diff \"x\"]\n\ttextconv = " + script +
				"\n[filter \"x\"]\n\tclean = " + script + "\n\tsmudge = " + script + "\n\trequired = true\n"
			writeFile(t, filepath.Join(shadow, "config"), evil)
			writeFile(t, filepath.Join(shadow, "info", "attributes"), "* filter=x diff=x\n")
			writeFile(t, filepath.Join(shadow, "index.lock"), "")
			writeFile(t, filepath.Join(shadow, "commondir"), bin+"\n")
			writeFile(t, filepath.Join(bin, "config"), evil)
			writeFile(t, filepath.Join(proj, ".gitattributes"), "* filter=x diff=x\n")

			c.ok("str_replace", map[string]any{"path": "a.txt", "old_str": "two", "new_str": "three"})
			id := latestID(t, c)
			if sandbox == "auto" {
				c.ok("bash", map[string]any{"command": "echo b >> b.txt"})
			}
			writeFile(t, filepath.Join(proj, "a.txt"), "four\n")
			if out := c.ok("diff", map[string]any{}); !strings.Contains(out, "+four") {
				t.Errorf("diff: got %q, want the change to four", out)
			}
			if out := c.ok("diff", map[string]any{"checkpoint": id}); !strings.Contains(out, "three") {
				t.Errorf("diff %s: got %q, want the change to three", id, out)
			}
			// The outside change to four touched a.txt after id: force.
			c.ok("undo", map[string]any{"checkpoint": id, "force": true})
			if data, err := os.ReadFile(mark); err == nil {
				t.Fatalf("a planted program ran:\n%s", data)
			}
		})
	}
}

// TestLinksPlantedAtOwnFiles plants, before the core starts, links to a
// victim outside every allowed directory (and to a new path beside it),
// and a FIFO, at each file the core opens in its shadow repository. The
// core answers, never writes, creates or reads through them, and the
// victim directory is as it was.
func TestLinksPlantedAtOwnFiles(t *testing.T) {
	for _, name := range []string{"boris.lock", "config", "info", "info/attributes", "info/exclude", "seq", "count", "HEAD", "index", "fifo:seq", "fifo:boris.lock", "device:count", "shadow"} {
		t.Run(name, func(t *testing.T) {
			home := realTempDir(t)
			proj := filepath.Join(home, "proj")
			writeFile(t, filepath.Join(proj, "a.txt"), "one\n")
			victimDir := realTempDir(t)
			victim := filepath.Join(victimDir, "victim")
			writeFile(t, victim, "untouched")
			state := filepath.Join(home, ".local", "state", "boris")
			// A first session makes the shadow, so its files exist to be replaced.
			first := startCoreWith(t, coreOptions{args: []string{"--workdir", proj, "--allow-dir", home}, env: []string{"HOME=" + home, "XDG_STATE_HOME=", "BORIS_STATE_DIR="}})
			first.ok("create_file", map[string]any{"path": "b.txt", "content": "b\n"})
			first.ok("history", map[string]any{})
			_ = first.session.Close()
			shadow := shadowOf(t, state)
			_, file, _ := strings.Cut(name, ":")
			if !strings.Contains(name, ":") {
				file = name
			}
			target := filepath.Join(shadow, file)
			if name == "shadow" {
				target = shadow
			}
			if err := os.RemoveAll(target); err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasPrefix(name, "fifo:"):
				if err := syscall.Mkfifo(target, 0o600); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(name, "device:"):
				// /dev/zero's numbers: reading it never ends.
				if err := syscall.Mknod(target, syscall.S_IFCHR|0o600, 1<<8|5); err != nil {
					t.Skipf("cannot make a device node (needs CAP_MKNOD): %v", err)
				}
			case name == "info" || name == "shadow":
				if err := os.Symlink(victimDir, target); err != nil {
					t.Fatal(err)
				}
			case name == "config":
				if err := os.Symlink(filepath.Join(victimDir, "new"), target); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.Symlink(victim, target); err != nil {
					t.Fatal(err)
				}
			}
			c := startCoreWith(t, coreOptions{args: []string{"--workdir", proj, "--allow-dir", home}, env: []string{"HOME=" + home, "XDG_STATE_HOME=", "BORIS_STATE_DIR="}})
			c.ok("create_file", map[string]any{"path": "c.txt", "content": "c\n"})
			c.ok("view", map[string]any{"path": "c.txt"})
			entries, _ := os.ReadDir(victimDir)
			if len(entries) != 1 || readFile(t, victim) != "untouched" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("victim directory after the core ran: %v, victim %q; want only the untouched victim", names, readFile(t, victim))
			}
		})
	}
}

// TestExtensionCallFilesNotFollowed: an extension call's files lie where
// commands can write, so a tool (or any command of the session) can
// replace its log and error files with links to a file outside every
// allowed directory, or with FIFOs. The core reads them without following
// links and never blocks on them: the file's contents never reach the
// client, as a log or an error, and the call ends.
func TestExtensionCallFilesNotFollowed(t *testing.T) {
	victim := filepath.Join(realTempDir(t), "victim")
	writeFile(t, victim, `{"level":"error","logger":"x","data":"SECRET-7c1d"}`+"\n")
	root := realTempDir(t)
	extTool(t, root, "linker", `{"name":"linker","description":"links its call files elsewhere"}`,
		`rm -f "$MCP_LOG_STREAM" "$MCP_TOOL_ERROR_FILE"; ln -s `+victim+` "$MCP_LOG_STREAM"; ln -s `+victim+` "$MCP_TOOL_ERROR_FILE"; sleep 0.5; exit 1`+"\n")
	extTool(t, root, "fifo", `{"name":"fifo","description":"makes its call files FIFOs"}`,
		`rm -f "$MCP_LOG_STREAM" "$MCP_PROGRESS_STREAM" "$MCP_TOOL_ERROR_FILE"; mkfifo "$MCP_LOG_STREAM" "$MCP_PROGRESS_STREAM" "$MCP_TOOL_ERROR_FILE"; sleep 0.5; exit 1`+"\n")
	var mu sync.Mutex
	var logs []string
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-e2e", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			logs = append(logs, fmt.Sprint(req.Params.Data))
			mu.Unlock()
		},
	})
	work := realTempDir(t)
	s := connectClient(t, client, []string{"--workdir", work, "--allow-dir", work, "--extensions", root})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "linker", Arguments: map[string]any{}})
	if err != nil && strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("linker: the error carries the victim's contents: %v", err)
	}
	if res != nil && strings.Contains(text(res), "SECRET") {
		t.Errorf("linker's result: got %q, want nothing of the victim", text(res))
	}
	// FIFOs in place of the call's files: the call ends, nothing waits on them.
	params := &mcp.CallToolParams{Name: "fifo", Arguments: map[string]any{}}
	params.SetProgressToken("tok")
	if res, err := s.CallTool(ctx, params); err != nil || res == nil || !res.IsError {
		t.Errorf("fifo: got %v, %v; want the tool's failure, promptly", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(logs, "|"), "SECRET") {
		t.Errorf("log notifications: got %q, want nothing of the victim", logs)
	}
	// Nor can a file tool rewrite the SDK every extension tool sources,
	// nor a call's files.
	extTool(t, root, "sdkpath", `{"name":"sdkpath","description":"prints where the SDK is"}`, `echo "$MCP_SDK"`+"\n")
	c := startCoreWith(t, coreOptions{args: []string{"--workdir", work, "--extensions", root}})
	sdk := strings.TrimSpace(c.ok("sdkpath", map[string]any{}))
	if !filepath.IsAbs(sdk) {
		t.Fatalf("sdkpath: got %q, want the SDK's directory", sdk)
	}
	entries, err := os.ReadDir(sdk)
	if err != nil || len(entries) == 0 {
		t.Fatalf("the SDK directory %s: %v, %d entries", sdk, err, len(entries))
	}
	for _, p := range []string{filepath.Join(sdk, entries[0].Name()), filepath.Join(filepath.Dir(sdk), "call-x", "log")} {
		c.fails("ACCESS_DENIED", "create_file", map[string]any{"path": p, "content": "touch /tmp/pwned\n"})
	}
}
