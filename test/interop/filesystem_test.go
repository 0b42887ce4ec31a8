package interop

// Differential tests of boris --toolset filesystem against the real
// @modelcontextprotocol/server-filesystem (pinned in package.json): both
// serve twin fixture trees, get the same calls, and must answer alike
// after these normalisations:
//   - each server's fixture directory reads as $P (the twins live at paths
//     of equal length, .../r and .../b);
//   - get_file_info's created/modified/accessed values read as <date>;
//   - results: the go-sdk's "_meta" (serverInfo) and "resultType" are
//     dropped: they are the protocol's, not the tool's;
//   - tools/list: "execution": {"taskSupport": "forbidden"} (which the
//     go-sdk cannot send, and which is what its absence means) is dropped
//     and annotations' unstated readOnlyHint/idempotentHint read as false,
//     their defaults.
// Every deliberate difference (docs/workspaces.md#replacing-server-filesystem) is
// asserted as such: error text, CRLF kept, nothing shown of what lies
// outside the allowed directories.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	pinned["@modelcontextprotocol/server-filesystem"] = "dist/index.js"
}

// fsTwin is one server under test with its fixture directory.
type fsTwin struct {
	name string
	p    string // the parent of ws and ws_evil
	s    *mcp.ClientSession
}

func (tw fsTwin) dir() string { return filepath.Join(tw.p, "ws") }

// makeFsFixture builds the fixture under p:
//
//	ws/f.txt, ws/crlf.txt, ws/a/b/c/deep.txt, ws/.hidden, ws/Zeta.txt, ws/alpha.txt
//	ws/sizes/{small,medium,large}.dat, ws/media/{img.png,sound.mp3,blob.bin}
//	ws/node_modules/pkg/index.js, ws/code.go (for whitespace drift)
//	ws/link -> ws_evil (a symlink leading out: CVE-2025-53109's class)
//	ws_evil/secret.txt (a sibling sharing ws's prefix: CVE-2025-53110's class)
func makeFsFixture(t *testing.T, p string) {
	t.Helper()
	files := map[string]string{
		"ws/f.txt":                      "alpha\nbeta\ngamma\ndelta\n",
		"ws/crlf.txt":                   "one\r\ntwo\r\nthree\r\n",
		"ws/a/b/c/deep.txt":             "deep\n",
		"ws/.hidden":                    "dot\n",
		"ws/Zeta.txt":                   "z",
		"ws/alpha.txt":                  "a",
		"ws/_under.txt":                 "u",
		"ws/sizes/small.dat":            strings.Repeat("s", 10),
		"ws/sizes/medium.dat":           strings.Repeat("m", 1152),
		"ws/sizes/large.dat":            strings.Repeat("l", 3<<20/2),
		"ws/media/img.png":              "\x89PNG\r\n\x1a\nnot really",
		"ws/media/sound.mp3":            "ID3 sound",
		"ws/media/blob.bin":             "\x00\x01\x02",
		"ws/node_modules/pkg/index.js":  "module.exports = 1\n",
		"ws/code.go":                    "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		"ws/move/src.txt":               "moving\n",
		"ws/move/taken.txt":             "taken\n",
		"ws_evil/secret.txt":            "TOPSECRET\n",
		"ws/empty/.keep":                "",
		"ws/a/b/c/ignored/skip.txt":     "skip\n",
		"ws/a/b/notes.md":               "# notes\n",
		"ws/a/UPPER.MD":                 "upper\n",
		"ws/a/b/c/ignored/keep.go":      "package x\n",
		"ws/a/b/c/ignored/.dotfile.txt": "dot\n",
		// Names JSON must escape, and ones JavaScript's JSON.stringify
		// leaves alone where Go's encoder would not.
		"ws/names/quote\"d.txt":        "q",
		"ws/names/back\\slash.txt":     "b",
		"ws/names/tab\tand\x01ctl.txt": "t",
		"ws/names/sep\u2028\u2029.txt": "s",
		"ws/names/<&>.txt":             "h",
		"ws/names/snow ☃ 🙂.txt":        "u",
	}
	for rel, content := range files {
		path := filepath.Join(p, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(p, "ws_evil"), filepath.Join(p, "ws", "link")); err != nil {
		t.Fatal(err)
	}
}

// startFsTwins starts the real server and Boris on twin fixtures.
func startFsTwins(t *testing.T) (ref, boris fsTwin) {
	t.Helper()
	return startFsTwinsWith(t, func(p string) { makeFsFixture(t, p) })
}

// startFsTwinsWith starts the real server and Boris, each on the fixture
// build makes under its twin's parent directory.
func startFsTwinsWith(t *testing.T, build func(p string)) (ref, boris fsTwin) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ref, boris = fsTwin{name: "server-filesystem", p: filepath.Join(root, "r")}, fsTwin{name: "boris", p: filepath.Join(root, "b")}
	build(ref.p)
	build(boris.p)
	server := filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	ref.s = connectFs(t, exec.Command(nodeBin, server, ref.dir()))
	cmd := exec.Command(filepath.Join(binDir, "boris"), "--toolset", "filesystem", "--allow-dir", boris.dir(), "--workdir", boris.dir(), "--checkpoints", "off", "--diagnostics", "off")
	boris.s = connectFs(t, cmd)
	return ref, boris
}

func connectFs(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "fs-differential", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// normTools is tools/list as JSON values by name, normalised.
func normTools(t *testing.T, s *mcp.ClientSession) map[string]any {
	t.Helper()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]any{}
	for _, tool := range res.Tools {
		var m map[string]any
		b, _ := json.Marshal(tool)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "execution")
		if ann, ok := m["annotations"].(map[string]any); ok {
			for _, k := range []string{"readOnlyHint", "idempotentHint"} {
				if _, set := ann[k]; !set {
					ann[k] = false
				}
			}
		}
		out[tool.Name] = m
	}
	return out
}

func TestFilesystemToolsList(t *testing.T) {
	ready(t)
	ref, boris := startFsTwins(t)
	want, got := normTools(t, ref.s), normTools(t, boris.s)
	if len(want) != 14 {
		t.Errorf("server-filesystem lists %d tools, want 14: has the pinned release changed?", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools/list (-server-filesystem +boris):\n%s", diff)
	}
}

// fsCall is one step of the differential sequence. Args hold "$P" for the
// twin's fixture parent. code, when set, is a deliberate difference in
// error text: both fail, Boris with "[code] ...".
type fsCall struct {
	tool string
	args string
	code string
}

var dateLine = regexp.MustCompile(`(?m)^(created|modified|accessed): .*$`)

// callFs runs c on tw and returns the result as normalised JSON text.
func callFs(t *testing.T, tw fsTwin, c fsCall) (norm string, res *mcp.CallToolResult) {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(c.args, "$P", tw.p)), &args); err != nil {
		t.Fatalf("bad args %s: %v", c.args, err)
	}
	res, err := tw.s.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %s %s: protocol error %v", tw.name, c.tool, c.args, err)
	}
	var m map[string]any
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "_meta")      // the go-sdk's serverInfo
	delete(m, "resultType") // the go-sdk's "complete"
	b, _ = json.MarshalIndent(m, "", " ")
	s := strings.ReplaceAll(string(b), tw.p, "$P")
	return dateLine.ReplaceAllString(strings.ReplaceAll(s, `\n`, "\n"), "$1: <date>"), res
}

func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// fsSequence is run in order on both twins: every tool, success and
// failure. Writes change both trees alike, so later calls see the same.
var fsSequence = []fsCall{
	{tool: "list_allowed_directories", args: `{}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/f.txt"}`},
	{tool: "read_file", args: `{"path":"$P/ws/f.txt"}`},
	{tool: "read_text_file", args: `{"path":"f.txt"}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/f.txt","head":2}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/f.txt","tail":2}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/crlf.txt","head":1}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/crlf.txt","tail":3}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/f.txt","head":100}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/f.txt","head":1,"tail":1}`, code: "INVALID_INPUT"},
	{tool: "read_text_file", args: `{"path":"$P/ws/missing.txt"}`, code: "PATH_NOT_FOUND"},
	{tool: "read_text_file", args: `{"path":"$P/ws/a"}`, code: "IS_DIRECTORY"},
	{tool: "read_multiple_files", args: `{"paths":["$P/ws/f.txt","$P/ws/a/b/c/deep.txt"]}`},
	{tool: "read_media_file", args: `{"path":"$P/ws/media/img.png"}`},
	{tool: "read_media_file", args: `{"path":"$P/ws/media/sound.mp3"}`},
	{tool: "read_media_file", args: `{"path":"$P/ws/media/blob.bin"}`},
	{tool: "read_media_file", args: `{"path":"$P/ws/media/none.png"}`, code: "PATH_NOT_FOUND"},
	{tool: "list_directory", args: `{"path":"$P/ws"}`},
	{tool: "list_directory", args: `{"path":"$P/ws/a"}`},
	{tool: "list_directory", args: `{"path":"$P/ws/nope"}`, code: "PATH_NOT_FOUND"},
	{tool: "list_directory_with_sizes", args: `{"path":"$P/ws/sizes","sortBy":"size"}`},
	{tool: "list_directory_with_sizes", args: `{"path":"$P/ws/sizes"}`},
	{tool: "list_directory_with_sizes", args: `{"path":"$P/ws/media","sortBy":"name"}`},
	{tool: "directory_tree", args: `{"path":"$P/ws/a"}`},
	{tool: "directory_tree", args: `{"path":"$P/ws","excludePatterns":["node_modules","**/*.dat","ignored"]}`},
	{tool: "directory_tree", args: `{"path":"$P/ws/empty"}`},
	{tool: "directory_tree", args: `{"path":"$P/ws/names"}`},
	{tool: "list_directory", args: `{"path":"$P/ws/names"}`},
	{tool: "search_files", args: `{"path":"$P/ws","pattern":"**/*.txt","excludePatterns":["**/ignored/**"]}`},
	{tool: "search_files", args: `{"path":"$P/ws","pattern":"*.txt"}`},
	{tool: "search_files", args: `{"path":"$P/ws/a","pattern":"**/{*.md,*.MD}"}`},
	{tool: "search_files", args: `{"path":"$P/ws","pattern":"**/*.nothing"}`},
	{tool: "get_file_info", args: `{"path":"$P/ws/f.txt"}`},
	{tool: "get_file_info", args: `{"path":"$P/ws/sizes/medium.dat"}`},
	{tool: "get_file_info", args: `{"path":"$P/ws/gone"}`, code: "PATH_NOT_FOUND"},
	{tool: "write_file", args: `{"path":"$P/ws/new.txt","content":"fresh\ncontent\n"}`},
	{tool: "write_file", args: `{"path":"$P/ws/f.txt","content":"alpha\nbeta\ngamma\ndelta\nepsilon\n"}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/new.txt"}`},
	{tool: "write_file", args: `{"path":"$P/ws/no/such/dir/x.txt","content":"x"}`, code: "PATH_NOT_FOUND"},
	{tool: "edit_file", args: `{"path":"$P/ws/code.go","edits":[{"oldText":"if x {\n    return 1\n}","newText":"if y {\n    return 2\n}"}],"dryRun":true}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/code.go"}`},
	{tool: "edit_file", args: `{"path":"$P/ws/code.go","edits":[{"oldText":"if x {\n    return 1\n}","newText":"if y {\n    return 2\n}"}]}`},
	{tool: "read_text_file", args: `{"path":"$P/ws/code.go"}`},
	{tool: "edit_file", args: `{"path":"$P/ws/f.txt","edits":[{"oldText":"beta","newText":"BETA"},{"oldText":"delta\nepsilon","newText":"omega"}]}`},
	{tool: "edit_file", args: `{"path":"$P/ws/f.txt","edits":[{"oldText":"not there","newText":"x"}]}`, code: "NOT_FOUND_IN_FILE"},
	{tool: "edit_file", args: `{"path":"$P/ws/crlf.txt","edits":[{"oldText":"two","newText":"2"}]}`},
	{tool: "create_directory", args: `{"path":"$P/ws/made/deeper"}`},
	{tool: "create_directory", args: `{"path":"$P/ws/made"}`},
	{tool: "move_file", args: `{"source":"$P/ws/move/src.txt","destination":"$P/ws/made/moved.txt"}`},
	{tool: "move_file", args: `{"source":"$P/ws/made/moved.txt","destination":"$P/ws/move/taken.txt"}`, code: "INVALID_INPUT"},
	{tool: "move_file", args: `{"source":"$P/ws/move/absent.txt","destination":"$P/ws/move/x.txt"}`, code: "PATH_NOT_FOUND"},
	{tool: "directory_tree", args: `{"path":"$P/ws/made"}`},
	// The escape classes of CVE-2025-53109 (a symlink leading out) and
	// CVE-2025-53110 (a sibling sharing the prefix): this release refuses
	// them too; Boris with ACCESS_DENIED.
	{tool: "read_text_file", args: `{"path":"$P/ws/link/secret.txt"}`, code: "ACCESS_DENIED"},
	{tool: "read_text_file", args: `{"path":"$P/ws_evil/secret.txt"}`, code: "ACCESS_DENIED"},
	{tool: "read_text_file", args: `{"path":"$P/ws/../ws_evil/secret.txt"}`, code: "ACCESS_DENIED"},
	{tool: "write_file", args: `{"path":"$P/ws/link/secret.txt","content":"pwned"}`, code: "ACCESS_DENIED"},
	{tool: "write_file", args: `{"path":"$P/ws_evil/new.txt","content":"pwned"}`, code: "ACCESS_DENIED"},
	{tool: "list_directory", args: `{"path":"$P/ws/link"}`, code: "ACCESS_DENIED"},
	{tool: "move_file", args: `{"source":"$P/ws/new.txt","destination":"$P/ws_evil/stolen.txt"}`, code: "ACCESS_DENIED"},
	{tool: "create_directory", args: `{"path":"$P/ws_evil/made"}`, code: "ACCESS_DENIED"},
	{tool: "search_files", args: `{"path":"$P/ws","pattern":"**/secret.txt"}`},
	{tool: "directory_tree", args: `{"path":"$P/ws/link"}`, code: "ACCESS_DENIED"},
	{tool: "list_directory", args: `{"path":"$P/ws"}`},
}

func TestFilesystemDifferential(t *testing.T) {
	ready(t)
	ref, boris := startFsTwins(t)
	for i, c := range fsSequence {
		want, wres := callFs(t, ref, c)
		got, gres := callFs(t, boris, c)
		step := func() string { return c.tool + " " + c.args }
		if c.code == "" {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("step %d, %s (-server-filesystem +boris):\n%s", i, step(), diff)
			}
			continue
		}
		if !wres.IsError {
			t.Errorf("step %d, %s: server-filesystem succeeded (%s), want an error", i, step(), resultText(wres))
		}
		if !gres.IsError || !strings.HasPrefix(resultText(gres), "["+c.code+"] ") {
			t.Errorf("step %d, %s: boris answered %q (isError %t), want [%s] ...", i, step(), resultText(gres), gres.IsError, c.code)
		}
	}
	for _, tw := range []fsTwin{ref, boris} {
		if b, _ := os.ReadFile(filepath.Join(tw.p, "ws_evil", "secret.txt")); string(b) != "TOPSECRET\n" {
			t.Errorf("%s: the secret outside the allowed directory now holds %q", tw.name, b)
		}
		if _, err := os.Stat(filepath.Join(tw.p, "ws_evil", "stolen.txt")); err == nil {
			t.Errorf("%s: a file was moved out of the allowed directory", tw.name)
		}
	}
	t.Run("CRLF kept", func(t *testing.T) {
		// Deliberate difference: server-filesystem writes an edited CRLF
		// file back with LF line ends; Boris keeps CRLF.
		wantRef, wantBoris := "one\n2\nthree\n", "one\r\n2\r\nthree\r\n"
		if b, _ := os.ReadFile(filepath.Join(ref.dir(), "crlf.txt")); string(b) != wantRef {
			t.Errorf("server-filesystem's crlf.txt: got %q, want %q (has its behaviour changed?)", b, wantRef)
		}
		if b, _ := os.ReadFile(filepath.Join(boris.dir(), "crlf.txt")); string(b) != wantBoris {
			t.Errorf("boris's crlf.txt: got %q, want %q", b, wantBoris)
		}
	})
	t.Run("error text", func(t *testing.T) {
		// Deliberate difference: read_multiple_files shows each failure in
		// Boris's "[CODE] message" form.
		c := fsCall{tool: "read_multiple_files", args: `{"paths":["$P/ws/new.txt","$P/ws/missing.txt"]}`}
		_, wres := callFs(t, ref, c)
		_, gres := callFs(t, boris, c)
		if w := resultText(wres); !strings.Contains(w, "missing.txt: Error - ENOENT") {
			t.Errorf("server-filesystem: got %q, want an ENOENT line", w)
		}
		if g := resultText(gres); !strings.Contains(g, "missing.txt: Error - [PATH_NOT_FOUND] ") || !strings.HasPrefix(g, boris.dir()+"/new.txt:\nfresh\ncontent\n\n\n---\n") {
			t.Errorf("boris: got %q, want new.txt's text then a [PATH_NOT_FOUND] line", g)
		}
	})
	t.Run("nothing shown from outside", func(t *testing.T) {
		// Deliberate difference: server-filesystem's list_directory_with_sizes
		// stats a symlink's target even outside the allowed directories
		// (here: the size of the directory ws_evil); Boris shows 0 B for
		// what it may not look at.
		c := fsCall{tool: "list_directory_with_sizes", args: `{"path":"$P/ws"}`}
		_, wres := callFs(t, ref, c)
		_, gres := callFs(t, boris, c)
		linkLine := regexp.MustCompile(`(?m)^\[FILE\] link +(.*)$`)
		w, g := linkLine.FindStringSubmatch(resultText(wres)), linkLine.FindStringSubmatch(resultText(gres))
		if w == nil || g == nil {
			t.Fatalf("no link line: server-filesystem %q, boris %q", resultText(wres), resultText(gres))
		}
		if strings.TrimSpace(w[1]) == "0 B" {
			t.Errorf("server-filesystem shows link as %q: has it stopped following links out? Update the README", w[1])
		}
		if got := strings.TrimSpace(g[1]); got != "0 B" {
			t.Errorf("boris shows link as %q, want 0 B", got)
		}
		others := func(s string) []string {
			return slices.DeleteFunc(strings.Split(s, "\n"), func(l string) bool {
				// crlf.txt differs as CRLF was kept (above).
				return strings.HasPrefix(l, "[FILE] link ") || strings.HasPrefix(l, "[FILE] crlf.txt ") || strings.HasPrefix(l, "Combined size")
			})
		}
		if diff := cmp.Diff(others(resultText(wres)), others(resultText(gres))); diff != "" {
			t.Errorf("other lines (-server-filesystem +boris):\n%s", diff)
		}
	})
}
