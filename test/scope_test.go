// The scoping tests run on Linux only: the swap race needs renameat2's
// RENAME_EXCHANGE (golang.org/x/sys/unix) to flip a directory and a symlink
// atomically, and the post-open re-check they exercise reads /proc.

//go:build linux

package test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/swaptest"
)

// secretMarker is the unique text of every file the scoping must protect;
// no tool result may ever contain it.
const secretMarker = "TOPSECRET-8c1f9e"

// secretContent is what protected files hold.
const secretContent = "api_key=" + secretMarker + "\n"

// scopeFixture is a root holding work/ (the allowed working directory, with
// denied corners and symlinks leading out) and outside/ (never allowed).
type scopeFixture struct {
	root, work, outside string
}

// newScopeFixture builds the adversarial tree:
//
//	outside/secret.txt          secret
//	work/ok.txt                 allowed
//	work/sub/                   for sub/../.. traversal
//	work/.env, work/deep/er/.env, work/secrets/key.pem, work/secrets/ключ.txt,
//	work/a/secrets/b/c, work/private/x           denied, secret
//	work/link     -> outside/secret.txt
//	work/dirlink  -> outside
//	work/dangle   -> outside/dangled.txt (does not exist)
//	work/envlink  -> work/.env
//	work/private/tolink -> work/ok.txt (an allowed file behind a denied door)
func newScopeFixture(t *testing.T) scopeFixture {
	t.Helper()
	root := realTempDir(t)
	f := scopeFixture{root: root, work: filepath.Join(root, "work"), outside: filepath.Join(root, "outside")}
	writeFile(t, filepath.Join(f.outside, "secret.txt"), secretContent)
	writeFile(t, filepath.Join(f.work, "ok.txt"), "allowed content\n")
	for _, p := range []string{".env", "deep/er/.env", "secrets/key.pem", "secrets/ключ.txt", "a/secrets/b/c", "private/x"} {
		writeFile(t, filepath.Join(f.work, p), secretContent)
	}
	if err := os.MkdirAll(filepath.Join(f.work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"link":           filepath.Join(f.outside, "secret.txt"),
		"dirlink":        f.outside,
		"dangle":         filepath.Join(f.outside, "dangled.txt"),
		"envlink":        filepath.Join(f.work, ".env"),
		"private/tolink": filepath.Join(f.work, "ok.txt"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.work, name)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// scopedArgs are the restrictive flags of the scoping tests.
func (f scopeFixture) scopedArgs() []string {
	return []string{
		"--workdir", f.work,
		"--allow-dir", f.work,
		"--deny-dir", "**/.env",
		"--deny-dir", "**/secrets/**",
		"--deny-dir", filepath.Join(f.work, "private"),
	}
}

// entryState describes one file-system entry (type, mode, mtime and content
// or link target) without following symlinks.
func entryState(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			t.Fatal(err)
		}
		return "symlink -> " + target
	case fi.IsDir():
		return fmt.Sprintf("dir %v mtime %d", fi.Mode(), fi.ModTime().UnixNano())
	default:
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("file %v mtime %d content %q", fi.Mode(), fi.ModTime().UnixNano(), b)
	}
}

// treeState maps every entry under dir (dir itself included, symlinks not
// followed) to its entryState, so a test can prove nothing was touched.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		state[path] = entryState(t, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// assertSameState reports every entry that differs between two treeStates.
func assertSameState(t *testing.T, before, after map[string]string) {
	t.Helper()
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		b, ok1 := before[k]
		a, ok2 := after[k]
		switch {
		case !ok1:
			t.Errorf("%s: got new entry %s, want nothing created", k, a)
		case !ok2:
			t.Errorf("%s: got it removed, want %s", k, b)
		case a != b:
			t.Errorf("%s: got %s, want unchanged %s", k, a, b)
		}
	}
}

// fileToolCalls returns the view, str_replace and create_file calls an
// attack on path makes. oldStr is text the targeted file really holds, so a
// call that slipped through would edit it rather than fail to match.
func fileToolCalls(path, oldStr string) []struct {
	tool string
	args map[string]any
} {
	return []struct {
		tool string
		args map[string]any
	}{
		{"view", map[string]any{"path": path}},
		{"str_replace", map[string]any{"path": path, "old_str": oldStr, "new_str": "PWNED"}},
		{"create_file", map[string]any{"path": path, "content": "PWNED\n"}},
	}
}

// assertDenied checks a result is [ACCESS_DENIED] and does not leak the secret.
func assertDenied(t *testing.T, tool string, args map[string]any, res *mcp.CallToolResult) {
	t.Helper()
	got := text(res)
	if !res.IsError || !strings.HasPrefix(got, "[ACCESS_DENIED] ") {
		t.Errorf("%s %v: got isError=%v %q, want [ACCESS_DENIED]", tool, args, res.IsError, got)
	}
	if strings.Contains(got, secretMarker) {
		t.Errorf("%s %v: result leaks the secret: %q", tool, args, got)
	}
}

// TestScopeAttacks drives every escape attempt through view, str_replace and
// create_file: each must be refused with ACCESS_DENIED, leak nothing, and
// leave every file (inside work, outside it, and /etc/passwd) untouched.
func TestScopeAttacks(t *testing.T) {
	f := newScopeFixture(t)
	c := startCore(t, f.scopedArgs()...)
	etcNew := "/etc/boris-e2e-must-not-exist.txt"
	t.Cleanup(func() { os.Remove(etcNew) })

	tests := []struct {
		name, path string
		oldStr     string // defaults to secretMarker
		skipCreate bool   // never aim create_file at a real system file
	}{
		{name: "dotdot", path: "../outside/secret.txt"},
		{name: "dotdot through subdir", path: "sub/../../outside/secret.txt"},
		{name: "dotdot new file", path: "../outside/new.txt"},
		{name: "absolute outside", path: filepath.Join(f.outside, "secret.txt")},
		{name: "absolute with dotdot", path: f.work + "/../outside/secret.txt"},
		{name: "etc passwd", path: "/etc/passwd", skipCreate: true},
		{name: "new file in etc", path: etcNew},
		{name: "symlink to outside file", path: "link"},
		{name: "symlinked dir", path: "dirlink/secret.txt"},
		{name: "new file through symlinked dir", path: "dirlink/new.txt"},
		{name: "dangling symlink to outside", path: "dangle"},
		{name: "symlink to denied file", path: "envlink"},
		{name: "symlink in denied dir to allowed file", path: "private/tolink", oldStr: "allowed"},
		{name: "env at top", path: ".env"},
		{name: "env deep", path: "deep/er/.env"},
		{name: "env absolute", path: filepath.Join(f.work, ".env")},
		{name: "new env file", path: "newdir/.env"},
		{name: "secrets file", path: "secrets/key.pem"},
		{name: "nested secrets", path: "a/secrets/b/c"},
		{name: "new secrets file", path: "secrets/new.pem"},
		{name: "secrets dir itself", path: "secrets"},
		{name: "unicode secret", path: "secrets/ключ.txt"},
		{name: "plain deny", path: "private/x"},
		{name: "plain deny new nested", path: "private/new/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldStr := tt.oldStr
			if oldStr == "" {
				oldStr = secretMarker
			}
			before := treeState(t, f.root)
			passwd := entryState(t, "/etc/passwd")
			for _, call := range fileToolCalls(tt.path, oldStr) {
				if call.tool == "create_file" && tt.skipCreate {
					continue
				}
				assertDenied(t, call.tool, call.args, c.call(call.tool, call.args))
			}
			assertSameState(t, before, treeState(t, f.root))
			if got := entryState(t, "/etc/passwd"); got != passwd {
				t.Errorf("/etc/passwd: got %s, want unchanged %s", got, passwd)
			}
			if got := entryState(t, etcNew); got != "absent" {
				t.Errorf("%s: got %s, want absent", etcNew, got)
			}
		})
	}

	t.Run("allowed file still works", func(t *testing.T) {
		if got := c.ok("view", map[string]any{"path": "ok.txt"}); got != "     1\tallowed content\n" {
			t.Errorf("got %q, want the numbered allowed line", got)
		}
	})
}

// TestScopeListingHidesDenied checks view's directory listing leaves out
// every entry the policy refuses, at both levels, and shows the rest.
func TestScopeListingHidesDenied(t *testing.T) {
	f := newScopeFixture(t)
	c := startCore(t, f.scopedArgs()...)
	tests := []struct {
		path      string
		want, not []string // entry names as listed (dirs with "/")
	}{
		{".", []string{"ok.txt", "sub/", "a/", "deep/", "er/", "link -> " + filepath.Join(f.outside, "secret.txt"), "dirlink -> " + f.outside}, []string{".env", "secrets/", "private/", "x", "tolink"}},
		{"deep/er", nil, []string{".env"}},
		{"a", nil, []string{"secrets/", "b/", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := c.ok("view", map[string]any{"path": tt.path})
			if strings.Contains(got, secretMarker) {
				t.Fatalf("listing leaks the secret: %q", got)
			}
			var names []string
			for _, line := range strings.Split(got, "\n")[1:] {
				if line = strings.TrimSpace(line); line != "" {
					names = append(names, line)
				}
			}
			for _, w := range tt.want {
				if !slices.Contains(names, w) {
					t.Errorf("listing of %s: got entries %q, want %q among them", tt.path, names, w)
				}
			}
			for _, n := range tt.not {
				for _, name := range names {
					if name == n || strings.HasPrefix(name, n+" -> ") {
						t.Errorf("listing of %s: got entry %q, want denied %q hidden (entries %q)", tt.path, name, n, names)
					}
				}
			}
		})
	}
	t.Run("denied dir itself", func(t *testing.T) {
		for _, p := range []string{"secrets", "private", "a/secrets"} {
			assertDenied(t, "view", map[string]any{"path": p}, c.call("view", map[string]any{"path": p}))
		}
	})
}

// callTool calls a tool from any goroutine (core.call may only be used from
// the test goroutine because it fails the test).
func callTool(s *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// TestScopeSymlinkSwapRace swaps work/flip between a real directory and a
// symlink to outside/ (atomically, with RENAME_EXCHANGE) while view and
// str_replace hammer flip/data.txt: no result may show the secret and the
// outside file must never change, whatever the interleaving.
func TestScopeSymlinkSwapRace(t *testing.T) {
	root := realTempDir(t)
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	flip, spare := filepath.Join(work, "flip"), filepath.Join(root, "spare")
	writeFile(t, filepath.Join(outside, "data.txt"), secretContent+"marker\n")
	writeFile(t, filepath.Join(flip, "data.txt"), "harmless marker\n")
	if err := os.Symlink(outside, spare); err != nil {
		t.Fatal(err)
	}
	c := startCore(t, "--workdir", work, "--allow-dir", work)
	before := treeState(t, outside)

	swaps := swaptest.Start(t, flip, spare)

	type outcome struct {
		tool string
		res  *mcp.CallToolResult
		err  error
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
		wg       sync.WaitGroup
	)
	// Every edit records what the swaps changed outside Boris (two git
	// runs) while the swapper keeps a core busy: on a loaded host an edit
	// can take seconds, so calls get minutes, not callTool's 30 s.
	const workers, calls, editEvery = 4, 300, 5
	for w := range workers {
		wg.Go(func() {
			for i := range calls / workers {
				tool, args := "view", map[string]any{"path": "flip/data.txt"}
				if (w+i)%editEvery == 0 {
					// old_str occurs once in both files, so an edit that
					// reached outside/data.txt would change it.
					tool, args = "str_replace", map[string]any{"path": "flip/data.txt", "old_str": "marker", "new_str": "marker!"}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				cancel()
				mu.Lock()
				outcomes = append(outcomes, outcome{tool, res, err})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	flips := swaps.End(t, calls)

	counts := map[string]int{}
	for _, o := range outcomes {
		if o.err != nil {
			t.Errorf("%s: protocol error %v", o.tool, o.err)
			continue
		}
		got := text(o.res)
		if strings.Contains(got, secretMarker) {
			t.Errorf("%s: result leaks the secret: %q", o.tool, got)
		}
		kind := "ok"
		if o.res.IsError {
			kind, _, _ = strings.Cut(got, " ")
		}
		counts[o.tool+" "+kind]++
		switch {
		case kind == "[ACCESS_DENIED]" || kind == "[PATH_NOT_FOUND]":
		case kind == "ok" && strings.Contains(got, "harmless marker"):
		case kind == "[IO_ERROR]" && strings.Contains(got, flip):
			// The swap can make a component change type between two
			// system calls (readlink EINVAL, open ENOTDIR): a transient
			// file-system failure, harmless as long as nothing leaked.
		default:
			t.Errorf("%s: got isError=%v %q, want ACCESS_DENIED, PATH_NOT_FOUND, a transient IO_ERROR on flip or the harmless file", o.tool, o.res.IsError, got)
		}
	}
	t.Logf("%d swaps; outcomes %v", flips, counts)
	if got := len(outcomes); got != calls {
		t.Errorf("got %d calls, want %d", got, calls)
	}
	assertSameState(t, before, treeState(t, outside))
}

// TestScopeUnicodePaths checks names with spaces and non-ASCII letters work
// end to end when allowed and are refused when denied.
func TestScopeUnicodePaths(t *testing.T) {
	f := newScopeFixture(t)
	c := startCore(t, f.scopedArgs()...)
	rel := "dir with space/ünïcødé 文件.txt"
	abs := filepath.Join(f.work, rel)
	content := "héllo wörld\t文件\r\nzweite Zeile ✓\n"

	t.Run("create", func(t *testing.T) {
		c.ok("create_file", map[string]any{"path": rel, "content": content})
		if got := readFile(t, abs); got != content {
			t.Errorf("got %q, want %q", got, content)
		}
	})
	t.Run("view", func(t *testing.T) {
		for _, p := range []string{rel, abs} {
			got := c.ok("view", map[string]any{"path": p})
			if want := "     1\théllo wörld\t文件\n     2\tzweite Zeile ✓\n"; got != want {
				t.Errorf("view %q: got %q, want %q", p, got, want)
			}
		}
	})
	t.Run("str_replace", func(t *testing.T) {
		c.ok("str_replace", map[string]any{"path": abs, "old_str": "wörld", "new_str": "мир"})
		if got, want := readFile(t, abs), strings.Replace(content, "wörld", "мир", 1); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("listed", func(t *testing.T) {
		got := c.ok("view", map[string]any{"path": "dir with space"})
		if !strings.Contains(got, "  ünïcødé 文件.txt\n") {
			t.Errorf("got %q, want the unicode name listed", got)
		}
	})
	t.Run("denied unicode", func(t *testing.T) {
		assertAllDenied(t, c, f.root, []string{"secrets/ключ.txt", "secrets/новый файл.txt", "private/dir with space/x"}...)
	})
}

// TestScopeDenyBeatsAllow checks a deny rule wins over an allow entry that
// covers the same place, whichever spelling (plain path or pattern) it has.
func TestScopeDenyBeatsAllow(t *testing.T) {
	tests := []struct {
		name string
		deny func(work string) string
		path string
	}{
		{"deny the allowed dir itself", func(work string) string { return work }, "f.txt"},
		{"deny a subdir of the allowed dir", func(work string) string { return filepath.Join(work, "in") }, "in/f.txt"},
		{"pattern over the allowed dir", func(string) string { return "**/*.txt" }, "f.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := realTempDir(t)
			writeFile(t, filepath.Join(work, "f.txt"), secretContent)
			writeFile(t, filepath.Join(work, "in/f.txt"), secretContent)
			c := startCore(t, "--workdir", work, "--allow-dir", work, "--deny-dir", tt.deny(work))
			before := treeState(t, work)
			for _, call := range fileToolCalls(tt.path, secretMarker) {
				assertDenied(t, call.tool, call.args, c.call(call.tool, call.args))
			}
			assertSameState(t, before, treeState(t, work))
		})
	}
}

// TestScopeNoAllowDir checks that without --allow-dir every path is allowed
// except what --deny-dir refuses.
func TestScopeNoAllowDir(t *testing.T) {
	f := newScopeFixture(t)
	c := startCore(t, "--workdir", f.work, "--deny-dir", "**/.env")
	t.Run("view outside", func(t *testing.T) {
		if got, want := c.ok("view", map[string]any{"path": "../outside/secret.txt"}), "     1\t"+secretContent; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("view through symlink", func(t *testing.T) {
		if got, want := c.ok("view", map[string]any{"path": "dirlink/secret.txt"}), "     1\t"+secretContent; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("create outside", func(t *testing.T) {
		c.ok("create_file", map[string]any{"path": "../outside/new.txt", "content": "made\n"})
		if got := readFile(t, filepath.Join(f.outside, "new.txt")); got != "made\n" {
			t.Errorf("got %q, want made", got)
		}
	})
	t.Run("deny still applies", func(t *testing.T) {
		assertAllDenied(t, c, f.root, []string{".env", "../outside/.env", "deep/er/.env"}...)
	})
}

// TestScopeBashConfined: the allowed directories bind commands too, through
// the kernel (Landlock), except for deny globs inside an allowed directory,
// which Landlock cannot express (docs/security.md); --sandbox off
// lifts the confinement.
func TestScopeBashConfined(t *testing.T) {
	f := newScopeFixture(t)
	confined := startCore(t, f.scopedArgs()...)
	unconfined := startCore(t, append(f.scopedArgs(), "--sandbox", "off")...)
	tests := []struct {
		cmd      string
		readable bool // under the sandbox
	}{
		{"cat ../outside/secret.txt", false}, // outside --allow-dir: the kernel refuses
		{"cat dirlink/secret.txt", false},    // a symlink out of it: the same
		// A deny glob inside an allowed directory is beyond Landlock: the
		// file tools refuse .env, commands can still read it.
		{"cat .env", true},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if !landlockAvailable() {
				t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
			}
			got := confined.ok("bash", map[string]any{"command": tt.cmd})
			read := strings.Contains(got, secretMarker) && strings.HasSuffix(got, "exit_code: 0")
			if read != tt.readable {
				t.Errorf("sandboxed: got %q, want readable=%v", got, tt.readable)
			}
			if !tt.readable && !strings.Contains(got, "Permission denied") {
				t.Errorf("sandboxed: got %q, want Permission denied", got)
			}
			got = unconfined.ok("bash", map[string]any{"command": tt.cmd})
			if !strings.Contains(got, secretMarker) {
				t.Errorf("--sandbox off: got %q, want the secret", got)
			}
		})
	}
}

// TestScopeRelativeEntries checks relative --allow-dir and --deny-dir
// entries: they resolve against --workdir, and a relative pattern is
// anchored there rather than matching anywhere.
func TestScopeRelativeEntries(t *testing.T) {
	root := realTempDir(t)
	work := filepath.Join(root, "work")
	for _, p := range []string{"work/ok.txt", "work/private/x", "work/secrets/key.pem", "work/other/secrets/key.pem", "outside.txt"} {
		writeFile(t, filepath.Join(root, p), "content of "+p+"\n")
	}
	c := startCore(t, "--workdir", work, "--allow-dir", ".", "--deny-dir", "private", "--deny-dir", "secrets/*.pem")
	tests := []struct {
		path   string
		denied bool
	}{
		{"ok.txt", false},
		{"other/secrets/key.pem", false},
		{"private/x", true},
		{"secrets/key.pem", true},
		{"../outside.txt", true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if tt.denied {
				c.fails("ACCESS_DENIED", "view", map[string]any{"path": tt.path})
				return
			}
			if got, want := c.ok("view", map[string]any{"path": tt.path}), "     1\tcontent of work/"+tt.path+"\n"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// assertAllDenied runs every file tool on each path, expecting ACCESS_DENIED,
// and checks that nothing under root changed.
func assertAllDenied(t *testing.T, c *core, root string, paths ...string) {
	t.Helper()
	before := treeState(t, root)
	for _, p := range paths {
		for _, call := range fileToolCalls(p, secretMarker) {
			assertDenied(t, call.tool, call.args, c.call(call.tool, call.args))
		}
	}
	assertSameState(t, before, treeState(t, root))
}
