//go:build linux

package test

// The adversarial scoping suite against boris --toolset filesystem: the
// escape classes of CVE-2025-53109 (a symlink inside the allowed directory
// leading out) and CVE-2025-53110 (a sibling directory sharing the allowed
// directory's prefix), the deny list, and a symlink swapped in while the
// tools write. Linux only, like scope_test.go: the swap needs renameat2's
// RENAME_EXCHANGE.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mjkoo/boris/internal/swaptest"
)

// fsEscapeFixture builds root/allowed (served) beside root/allowed_evil
// (the prefix sibling) and root/outside, with allowed/link -> outside,
// allowed/filelink -> outside/secret.txt and a denied allowed/.env.
func fsEscapeFixture(t *testing.T) (allowed, evil, outside string) {
	root := realTempDir(t)
	allowed, evil, outside = filepath.Join(root, "allowed"), filepath.Join(root, "allowed_evil"), filepath.Join(root, "outside")
	writeFile(t, filepath.Join(allowed, "ok.txt"), "fine\n")
	writeFile(t, filepath.Join(allowed, ".env"), secretContent)
	writeFile(t, filepath.Join(evil, "secret.txt"), secretContent)
	writeFile(t, filepath.Join(outside, "secret.txt"), secretContent)
	for name, target := range map[string]string{"link": outside, "filelink": filepath.Join(outside, "secret.txt"), "evillink": evil} {
		if err := os.Symlink(target, filepath.Join(allowed, name)); err != nil {
			t.Fatal(err)
		}
	}
	return allowed, evil, outside
}

func TestFsScopeEscapes(t *testing.T) {
	allowed, evil, outside := fsEscapeFixture(t)
	c := startCore(t, "--toolset", "filesystem", "--allow-dir", allowed, "--deny-dir", "**/.env", "--workdir", allowed, "--checkpoints", "off")
	before := map[string]map[string]string{evil: treeState(t, evil), outside: treeState(t, outside)}
	targets := map[string]string{
		"symlink dir out (CVE-2025-53109)":  filepath.Join(allowed, "link", "secret.txt"),
		"symlink file out (CVE-2025-53109)": filepath.Join(allowed, "filelink"),
		"prefix sibling (CVE-2025-53110)":   filepath.Join(evil, "secret.txt"),
		"link to prefix sibling":            filepath.Join(allowed, "evillink", "secret.txt"),
		"dot-dot to prefix sibling":         filepath.Join(allowed, "..", "allowed_evil", "secret.txt"),
		"relative dot-dot":                  "../outside/secret.txt",
		"denied inside":                     filepath.Join(allowed, ".env"),
	}
	for name, target := range targets {
		dir := filepath.Dir(target)
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"read_text_file", map[string]any{"path": target}},
			{"read_file", map[string]any{"path": target, "tail": 1}},
			{"read_media_file", map[string]any{"path": target}},
			{"get_file_info", map[string]any{"path": target}},
			{"write_file", map[string]any{"path": target, "content": "pwned"}},
			{"edit_file", map[string]any{"path": target, "edits": []any{map[string]any{"oldText": "api_key", "newText": "pwned"}}}},
			{"edit_file", map[string]any{"path": target, "edits": []any{map[string]any{"oldText": "api_key", "newText": "x"}}, "dryRun": true}},
			{"move_file", map[string]any{"source": target, "destination": filepath.Join(allowed, "stolen.txt")}},
			{"move_file", map[string]any{"source": filepath.Join(allowed, "ok.txt"), "destination": target}},
			{"create_directory", map[string]any{"path": target}},
			{"list_directory", map[string]any{"path": dir}},
			{"list_directory_with_sizes", map[string]any{"path": dir}},
			{"directory_tree", map[string]any{"path": dir}},
			{"search_files", map[string]any{"path": dir, "pattern": "**"}},
		}
		for _, call := range calls {
			what := name + ": " + call.tool
			res, err := callTool(c.session, call.tool, call.args)
			if err != nil {
				t.Errorf("%s: protocol error %v", what, err)
				continue
			}
			got := text(res)
			if strings.Contains(got, secretMarker) {
				t.Errorf("%s: result leaks the secret: %q", what, got)
			}
			listing := strings.HasPrefix(call.tool, "list_") || call.tool == "directory_tree" || call.tool == "search_files"
			switch {
			case listing && dir == allowed:
				// The denied file's directory is allowed: listed without it.
				if res.IsError || strings.Contains(got, ".env") {
					t.Errorf("%s of %s: got isError=%v %q, want a listing without .env", what, dir, res.IsError, got)
				}
			case !res.IsError || !strings.HasPrefix(got, "[ACCESS_DENIED] "):
				t.Errorf("%s: got isError=%v %q, want [ACCESS_DENIED]", what, res.IsError, got)
			}
		}
	}
	// read_multiple_files reports each refusal in its place.
	got := c.ok("read_multiple_files", map[string]any{"paths": []any{filepath.Join(allowed, "ok.txt"), targets["prefix sibling (CVE-2025-53110)"], targets["symlink file out (CVE-2025-53109)"]}})
	if strings.Contains(got, secretMarker) || strings.Count(got, "Error - [ACCESS_DENIED]") != 2 || !strings.Contains(got, "fine\n") {
		t.Errorf("read_multiple_files: got %q, want ok.txt's text and two ACCESS_DENIED lines", got)
	}
	// search_files from the top never follows the links out.
	if got := c.ok("search_files", map[string]any{"path": allowed, "pattern": "**/secret.txt"}); got != "No matches found" {
		t.Errorf("search_files: got %q, want no matches (the links lead out)", got)
	}
	for dir, state := range before {
		assertSameState(t, state, treeState(t, dir))
	}
	if got := readFile(t, filepath.Join(allowed, ".env")); got != secretContent {
		t.Errorf("denied .env changed to %q", got)
	}
}

// TestFsScopeSwapRace swaps allowed/flip between a real directory and a
// symlink to outside/ while write_file, edit_file, move_file and
// read_text_file work on flip/data.txt: no result shows the secret and
// nothing outside changes, whatever the interleaving.
func TestFsScopeSwapRace(t *testing.T) {
	root := realTempDir(t)
	work, outside := filepath.Join(root, "work"), filepath.Join(root, "outside")
	flip, spare := filepath.Join(work, "flip"), filepath.Join(root, "spare")
	writeFile(t, filepath.Join(outside, "data.txt"), secretContent+"marker\n")
	writeFile(t, filepath.Join(flip, "data.txt"), "harmless marker\n")
	if err := os.Symlink(outside, spare); err != nil {
		t.Fatal(err)
	}
	c := startCore(t, "--toolset", "filesystem", "--workdir", work, "--allow-dir", work, "--checkpoints", "off")
	before := treeState(t, outside)
	swaps := swaptest.Start(t, flip, spare)
	data := filepath.Join(flip, "data.txt")
	calls := []struct {
		tool string
		args func(i int) map[string]any
	}{
		{"read_text_file", func(int) map[string]any { return map[string]any{"path": data} }},
		{"write_file", func(int) map[string]any { return map[string]any{"path": data, "content": "harmless marker\n"} }},
		{"edit_file", func(int) map[string]any {
			return map[string]any{"path": data, "edits": []any{map[string]any{"oldText": "marker", "newText": "marker"}}}
		}},
		{"move_file", func(i int) map[string]any {
			return map[string]any{"source": filepath.Join(work, fmt.Sprintf("m%d", i)), "destination": filepath.Join(flip, fmt.Sprintf("m%d", i))}
		}},
		{"create_directory", func(i int) map[string]any { return map[string]any{"path": filepath.Join(flip, fmt.Sprintf("d%d", i))} }},
	}
	const workers, perWorker = 4, 50
	for i := range workers * perWorker {
		writeFile(t, filepath.Join(work, fmt.Sprintf("m%d", i)), "moved\n")
	}
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				n := w*perWorker + i
				call := calls[n%len(calls)]
				res, err := callTool(c.session, call.tool, call.args(n))
				mu.Lock()
				if err != nil {
					t.Errorf("%s: protocol error %v", call.tool, err)
					mu.Unlock()
					continue
				}
				got := text(res)
				if strings.Contains(got, secretMarker) {
					t.Errorf("%s: result leaks the secret: %q", call.tool, got)
				}
				kind := "ok"
				if res.IsError {
					kind, _, _ = strings.Cut(got, " ")
				}
				counts[call.tool+" "+kind]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d swaps; outcomes %v", swaps.End(t, workers*perWorker), counts)
	assertSameState(t, before, treeState(t, outside))
}
