package interop

// Generated differential cases: for each seed, a random tree (files with
// text that is not always UTF-8, directories, names in NFC and NFD and a
// third spelling of the same text, names that are not UTF-8, symlinks to
// files and directories inside, dangling ones, and ones leading out) is
// built twice, and a random sequence of calls (every tool; paths as
// listed, respelled in the other normalization form, missing, "" and
// relative; globs ending in "/**" in search_files and excludePatterns) is
// made to server-filesystem and to Boris. Results must be alike after
// callFs's normalisations, with only these more, each a deliberate
// difference docs/workspaces.md#replacing-server-filesystem lists:
//   - errors: both fail, Boris with "[CODE] message" (and so in
//     read_multiple_files' failed parts);
//   - nothing shown from outside: list_directory_with_sizes' lines of
//     links leading out, and its total, are not compared;
//   - edit_file keeps the bytes that are not UTF-8 outside an edit: such
//     a file decodes alike in both trees but may differ in size and bytes,
//     so, once there is one, sizes (get_file_info,
//     list_directory_with_sizes) are not compared and read_media_file's
//     data is compared decoded;
//   - no link leads to a name that is not UTF-8 (Boris refuses such a
//     path, where server-filesystem names another file).
// After every call both trees must hold the same names, kinds, link
// targets and (decoded) contents.
//
// BORIS_FS_SEEDS="1 2 3" and BORIS_FS_STEPS=N run other seeds and lengths.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/unicode/norm"
)

// whatwg decodes b as Node does (one U+FFFD per maximal subpart).
func whatwg(b []byte) string {
	out, _ := xunicode.UTF8.NewDecoder().Bytes(b)
	return string(out)
}

// genNames are the names random trees are made of: plain ones, NFC and
// NFD spellings of the same text, three spellings of "ậ" (NFC, NFD, and
// neither), and names that are not UTF-8.
var (
	genPlain   = []string{"a", "b", "src", "lib", "deep", "x.txt", "y.md", ".hid", "notes.txt", "z"}
	genUnicode = []string{"caf\u00e9", "cafe\u0301", "caf\u00e9.txt", "cafe\u0301.txt", "\u00c5ngstr\u00f6m", "A\u030angstro\u0308m", "\u1ead", "a\u0323\u0302", "a\u0302\u0323"}
	genBad     = []string{"bad\xff.txt", "cut\xe2\x82.md"}
	genWords   = []string{"alpha", "beta", "gamma", "  indented", "café", "naïve", "🙂", "x", "lib", "", "\ufeffbom"}
	genInvalid = []string{"\xff", "\xe2\x82", "\xf0\x9f\x99", "\xed\xa0\x80", "\xc0\xaf", "\x80\x80", "\xf4\x90\x80\x80"}
)

// genEntry is one entry of a generated tree; target "OUT..." leads to the
// twin's out directory.
type genEntry struct {
	rel, kind, target string // kind: file, dir, link
	content           []byte
}

// genTree makes a random tree description.
func genTree(r *rand.Rand) []genEntry {
	dirs := []string{""}
	var all []genEntry
	taken := map[string]bool{}
	for range 18 + r.IntN(18) {
		parent := dirs[r.IntN(len(dirs))]
		var name string
		switch x := r.IntN(20); {
		case x < 11:
			name = genPlain[r.IntN(len(genPlain))]
		case x < 19:
			name = genUnicode[r.IntN(len(genUnicode))]
		default:
			name = genBad[r.IntN(len(genBad))]
		}
		rel := strings.TrimPrefix(parent+"/"+name, "/")
		if taken[rel] || strings.Count(rel, "/") > 3 {
			continue
		}
		taken[rel] = true
		switch k := r.IntN(20); {
		case k < 5 && utf8Valid(name):
			all = append(all, genEntry{rel: rel, kind: "dir"})
			dirs = append(dirs, rel)
		case k < 10 && len(all) > 0:
			all = append(all, genEntry{rel: rel, kind: "link", target: genLinkTarget(r, parent, all)})
		default:
			all = append(all, genEntry{rel: rel, kind: "file", content: genContent(r)})
		}
	}
	return all
}

func utf8Valid(s string) bool { return whatwg([]byte(s)) == s }

// genLinkTarget is a relative target inside the tree (existing or not),
// or one leading out.
func genLinkTarget(r *rand.Rand, from string, all []genEntry) string {
	switch r.IntN(6) {
	case 0:
		return "OUT/secret.txt"
	case 1:
		return "OUT/missing"
	case 2:
		return "missing-" + strconv.Itoa(r.IntN(3))
	}
	to := all[r.IntN(len(all))].rel
	if !utf8Valid(to) {
		// A deliberate difference (docs/workspaces.md#replacing-server-filesystem): Boris refuses a path that
		// resolves to a name that is not UTF-8; server-filesystem takes the
		// decoded name, another file, which write_file then creates.
		return "missing-bad"
	}
	rel, err := filepath.Rel(filepath.Join("/ws", from), filepath.Join("/ws", to))
	if err != nil {
		return to
	}
	return rel
}

// genContent is a file's text: lines of words, sometimes with bytes that
// are not UTF-8, sometimes without a final newline.
func genContent(r *rand.Rand) []byte {
	var b bytes.Buffer
	bad := r.IntN(3) == 0
	for range r.IntN(8) {
		for j := range 1 + r.IntN(3) {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(genWords[r.IntN(len(genWords))])
			if bad && r.IntN(4) == 0 {
				b.WriteString(genInvalid[r.IntN(len(genInvalid))])
			}
		}
		b.WriteByte('\n')
	}
	if b.Len() > 0 && r.IntN(4) == 0 {
		b.Truncate(b.Len() - 1)
	}
	return b.Bytes()
}

// buildGenTree makes tree under p/ws, and p/out/secret.txt outside.
func buildGenTree(t *testing.T, p string, tree []genEntry) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(p, "ws"), 0o755))
	must(os.MkdirAll(filepath.Join(p, "out"), 0o755))
	must(os.WriteFile(filepath.Join(p, "out", "secret.txt"), []byte("TOPSECRET\n"), 0o644))
	for _, e := range tree {
		path := filepath.Join(p, "ws", e.rel)
		switch e.kind {
		case "dir":
			must(os.MkdirAll(path, 0o755))
		case "file":
			must(os.WriteFile(path, e.content, 0o644))
		case "link":
			target := e.target
			if rest, ok := strings.CutPrefix(target, "OUT"); ok {
				target = filepath.Join(p, "out") + rest
			}
			must(os.Symlink(target, path))
		}
	}
}

// scanned is one entry of a twin's tree as it is now.
type scanned struct {
	rel, kind, target string
	content           []byte
}

// scanTree lists p/ws, links not followed, in name order.
func scanTree(t *testing.T, p string) []scanned {
	t.Helper()
	var out []scanned
	var walk func(rel string)
	walk = func(rel string) {
		entries, err := os.ReadDir(filepath.Join(p, "ws", rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			r := strings.TrimPrefix(rel+"/"+e.Name(), "/")
			full := filepath.Join(p, "ws", r)
			switch {
			case e.Type()&os.ModeSymlink != 0:
				target, _ := os.Readlink(full)
				out = append(out, scanned{rel: r, kind: "link", target: strings.ReplaceAll(target, p, "$P")})
			case e.IsDir():
				out = append(out, scanned{rel: r, kind: "dir"})
				walk(r)
			default:
				b, _ := os.ReadFile(full)
				out = append(out, scanned{rel: r, kind: "file", content: b})
			}
		}
	}
	walk("")
	return out
}

// sameTrees compares the twins' trees; it returns the files whose bytes
// differ while they decode alike (edit_file's kept bytes), and an error
// for any other difference.
func sameTrees(t *testing.T, ref, boris fsTwin) (diverged []string, err error) {
	type view struct{ Rel, Kind, Target, Text string }
	a, b := scanTree(t, ref.p), scanTree(t, boris.p)
	var va, vb []view
	for _, s := range a {
		va = append(va, view{s.rel, s.kind, s.target, whatwg(s.content)})
	}
	for i, s := range b {
		vb = append(vb, view{s.rel, s.kind, s.target, whatwg(s.content)})
		if i < len(a) && a[i].rel == s.rel && !bytes.Equal(a[i].content, s.content) {
			diverged = append(diverged, s.rel)
		}
	}
	if diff := cmp.Diff(va, vb); diff != "" {
		return nil, fmt.Errorf("trees differ (-server-filesystem +boris):\n%s", diff)
	}
	return diverged, nil
}

// genCaller makes random calls on a tree it rescans before each.
type genCaller struct {
	r    *rand.Rand
	tree []scanned
}

// respell writes rel's components in another normalization form, or as
// listed (a name that is not UTF-8 as Node lists it: decoded).
func (g *genCaller) respell(rel string) string {
	rel = whatwg([]byte(rel))
	switch g.r.IntN(4) {
	case 0:
		return norm.NFC.String(rel)
	case 1:
		return norm.NFD.String(rel)
	}
	return rel
}

// path picks a path argument: mostly an entry of the tree (respelled at
// times), else a new name in a directory, a missing directory, "" or a
// relative path.
func (g *genCaller) path(kinds ...string) string {
	var pool []scanned
	for _, s := range g.tree {
		if len(kinds) == 0 || slices.Contains(kinds, s.kind) {
			pool = append(pool, s)
		}
	}
	switch x := g.r.IntN(20); {
	case x < 13 && len(pool) > 0:
		return "$P/ws/" + g.respell(pool[g.r.IntN(len(pool))].rel)
	case x < 16:
		return "$P/ws/" + g.newPath()
	case x == 16:
		return "$P/ws/nodir/sub/" + genPlain[g.r.IntN(len(genPlain))]
	case x == 17:
		return ""
	case x == 18 && len(pool) > 0:
		return g.respell(pool[g.r.IntN(len(pool))].rel) // relative to the allowed directory
	}
	return "$P/ws"
}

// newPath is a name in an existing directory (perhaps taken already).
func (g *genCaller) newPath() string {
	dirs := []string{""}
	for _, s := range g.tree {
		if s.kind == "dir" {
			dirs = append(dirs, g.respell(s.rel)+"/")
		}
	}
	names := append(slices.Clone(genPlain), genUnicode...)
	return dirs[g.r.IntN(len(dirs))] + names[g.r.IntN(len(names))]
}

// pattern is a glob of the kinds agents write, often ending in "/**".
func (g *genCaller) pattern() string {
	parts := []string{"**", "*", "*.txt", "*.md", "lib", "src", "deep", "{a,b}", "?", "[a-c]*", "caf*", ".*", "*\u0301*"}
	var segs []string
	for range 1 + g.r.IntN(3) {
		segs = append(segs, parts[g.r.IntN(len(parts))])
	}
	p := strings.Join(segs, "/")
	if g.r.IntN(2) == 0 {
		p += "/**"
	}
	return p
}

func (g *genCaller) patterns() []string {
	out := []string{}
	for range g.r.IntN(3) {
		if g.r.IntN(3) == 0 {
			out = append(out, genPlain[g.r.IntN(len(genPlain))]) // no "*": directory_tree's name rule
		} else {
			out = append(out, g.pattern())
		}
	}
	return out
}

// oldText picks text to replace from what a read of the file gave.
func (g *genCaller) oldText(text string) string {
	lines := strings.Split(text, "\n")
	l := lines[g.r.IntN(len(lines))]
	switch g.r.IntN(4) {
	case 0:
		return "not in the file"
	case 1:
		if f := strings.Fields(l); len(f) > 0 {
			return f[g.r.IntN(len(f))]
		}
	case 2:
		return strings.TrimSpace(l) // a loose match, when indented
	}
	return l
}

func (g *genCaller) words() string {
	var sb strings.Builder
	for range g.r.IntN(4) {
		sb.WriteString(genWords[g.r.IntN(len(genWords))])
		sb.WriteString([]string{" ", "\n"}[g.r.IntN(2)])
	}
	return sb.String()
}

// call makes the next call's tool and arguments.
func (g *genCaller) call(readText func(path string) (string, bool)) fsCall {
	args := map[string]any{}
	var tool string
	switch x := g.r.IntN(100); {
	case x < 12:
		tool = "read_text_file"
		args["path"] = g.path("file", "link")
		switch g.r.IntN(4) {
		case 0:
			args["head"] = 1 + g.r.IntN(4)
		case 1:
			args["tail"] = 1 + g.r.IntN(4)
		}
	case x < 18:
		tool = "read_multiple_files"
		var paths []string
		for range 1 + g.r.IntN(3) {
			paths = append(paths, g.path("file", "link"))
		}
		args["paths"] = paths
	case x < 26:
		tool = "list_directory"
		args["path"] = g.path("dir", "link")
	case x < 32:
		tool = "list_directory_with_sizes"
		args["path"] = g.path("dir", "link")
		if g.r.IntN(2) == 0 {
			args["sortBy"] = []string{"name", "size"}[g.r.IntN(2)]
		}
	case x < 42:
		tool = "directory_tree"
		args["path"] = g.path("dir")
		args["excludePatterns"] = g.patterns()
	case x < 56:
		tool = "search_files"
		args["path"] = g.path("dir")
		args["pattern"] = g.pattern()
		args["excludePatterns"] = g.patterns()
	case x < 62:
		tool = "get_file_info"
		args["path"] = g.path()
	case x < 72:
		tool = "write_file"
		args["path"] = g.path("file", "link")
		args["content"] = g.words()
	case x < 82:
		tool = "edit_file"
		path := g.path("file")
		args["path"] = path
		text, ok := readText(path)
		if !ok {
			text = "x"
		}
		args["edits"] = []map[string]string{{"oldText": g.oldText(text), "newText": g.words()}}
		args["dryRun"] = g.r.IntN(3) == 0
	case x < 88:
		tool = "create_directory"
		args["path"] = g.path("dir", "link")
	case x < 96:
		tool = "move_file"
		args["source"] = g.path()
		args["destination"] = g.path()
	default:
		tool = "read_media_file"
		args["path"] = g.path("file")
	}
	b, _ := json.Marshal(args)
	return fsCall{tool: tool, args: string(b)}
}

// genSeeds are the seeds make test runs (BORIS_FS_SEEDS overrides).
func genSeeds(t *testing.T) (seeds []uint64, steps int) {
	steps = 110
	if s := os.Getenv("BORIS_FS_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("BORIS_FS_STEPS=%q: %v", s, err)
		}
		steps = n
	}
	list := os.Getenv("BORIS_FS_SEEDS")
	if list == "" {
		return []uint64{1, 2, 3}, steps
	}
	for _, f := range strings.Fields(list) {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			t.Fatalf("BORIS_FS_SEEDS=%q: %v", list, err)
		}
		seeds = append(seeds, n)
	}
	return seeds, steps
}

// errorPart matches a failed part of read_multiple_files: its path, then
// the error, to the part's end.
var errorPart = regexp.MustCompile(`(?s)^(.*?): Error - .*$`)

// mediaData matches read_media_file's base64 data in a result's JSON.
var mediaData = regexp.MustCompile(`"(blob|data)": "([^"]*)"`)

// normText applies the deliberate differences to a result's text.
func normText(tool, text string, diverged, outLinks []string) string {
	switch tool {
	case "read_multiple_files":
		parts := strings.Split(text, "\n---\n")
		for i, p := range parts {
			if !strings.Contains(strings.SplitN(p, "\n", 2)[0], ": Error - ") {
				continue
			}
			parts[i] = errorPart.ReplaceAllString(p, "$1: Error")
		}
		return strings.Join(parts, "\n---\n")
	case "list_directory_with_sizes":
		skip := map[string]bool{}
		for _, rel := range slices.Concat(diverged, outLinks) {
			skip[whatwg([]byte(filepath.Base(rel)))] = true
		}
		if len(skip) == 0 {
			return text
		}
		lines := strings.Split(text, "\n")
		return strings.Join(slices.DeleteFunc(lines, func(l string) bool {
			f := strings.Fields(l) // generated names hold no spaces
			return strings.HasPrefix(l, "Combined size") || len(f) > 1 && skip[f[1]]
		}), "\n")
	case "read_media_file":
		if len(diverged) > 0 {
			return mediaData.ReplaceAllStringFunc(text, func(m string) string {
				b, _ := base64.StdEncoding.DecodeString(mediaData.FindStringSubmatch(m)[2])
				return fmt.Sprintf("%q: <decoded %q>", mediaData.FindStringSubmatch(m)[1], whatwg(b))
			})
		}
	case "get_file_info":
		if len(diverged) > 0 {
			return regexp.MustCompile(`(?m)^size: \d+$`).ReplaceAllString(text, "size: <size>")
		}
	}
	return text
}

// runGenerated runs one seed's tree and calls; it returns the number of
// calls made to each server.
func runGenerated(t *testing.T, seed uint64, steps int) int {
	r := rand.New(rand.NewPCG(seed, 27))
	tree := genTree(r)
	ref, boris := startFsTwinsWith(t, func(p string) { buildGenTree(t, p, tree) })
	g := &genCaller{r: r}
	text := func(tw fsTwin, res string) string {
		return dateLine.ReplaceAllString(strings.ReplaceAll(res, tw.p, "$P"), "$1: <date>")
	}
	readText := func(path string) (string, bool) {
		_, res := callFs(t, ref, fsCall{tool: "read_text_file", args: fmt.Sprintf(`{"path":%q}`, path)})
		return resultText(res), !res.IsError
	}
	var diverged []string
	calls, tally := 0, map[string][2]int{} // per tool: successes, errors
	for i := range steps {
		g.tree = scanTree(t, ref.p)
		var outLinks []string // links whose target (at the end of a chain) lies outside
		for _, s := range g.tree {
			if s.kind != "link" {
				continue
			}
			if res, err := filepath.EvalSymlinks(filepath.Join(ref.p, "ws", s.rel)); err == nil && !strings.HasPrefix(res, filepath.Join(ref.p, "ws")+"/") {
				outLinks = append(outLinks, s.rel)
			}
		}
		c := g.call(readText)
		want, wres := callFs(t, ref, c)
		got, gres := callFs(t, boris, c)
		calls++
		step := fmt.Sprintf("seed %d step %d: %s %s", seed, i, c.tool, c.args)
		n := tally[c.tool]
		n[btoi(wres.IsError)]++
		tally[c.tool] = n
		switch {
		case wres.IsError && gres.IsError:
			if !strings.HasPrefix(resultText(gres), "[") {
				t.Errorf("%s: boris failed with %q, want a [CODE] message", step, resultText(gres))
			}
		case wres.IsError != gres.IsError:
			t.Errorf("%s: server-filesystem isError %t (%q), boris isError %t (%q)", step, wres.IsError, text(ref, resultText(wres)), gres.IsError, text(boris, resultText(gres)))
		case c.tool == "read_media_file":
			if diff := cmp.Diff(normText(c.tool, want, diverged, nil), normText(c.tool, got, diverged, nil)); diff != "" {
				t.Errorf("%s (-server-filesystem +boris):\n%s", step, diff)
			}
		case c.tool == "read_multiple_files" || c.tool == "list_directory_with_sizes" || c.tool == "get_file_info":
			w := normText(c.tool, text(ref, resultText(wres)), diverged, outLinks)
			o := normText(c.tool, text(boris, resultText(gres)), diverged, outLinks)
			if diff := cmp.Diff(w, o); diff != "" {
				t.Errorf("%s (-server-filesystem +boris):\n%s", step, diff)
			}
		default:
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-server-filesystem +boris):\n%s", step, diff)
			}
		}
		var err error
		if diverged, err = sameTrees(t, ref, boris); err != nil {
			t.Fatalf("after %s: %v", step, err)
		}
		if t.Failed() {
			for _, s := range g.tree {
				t.Logf("tree before the step: %q %s %q", s.rel, s.kind, s.target)
			}
			t.FailNow() // one difference at a time: later steps would repeat it
		}
	}
	for _, tw := range []fsTwin{ref, boris} {
		if b, _ := os.ReadFile(filepath.Join(tw.p, "out", "secret.txt")); string(b) != "TOPSECRET\n" {
			t.Errorf("%s: the file outside the allowed directory now holds %q", tw.name, b)
		}
		if entries, _ := os.ReadDir(filepath.Join(tw.p, "out")); len(entries) != 1 {
			t.Errorf("%s: the directory outside holds %d entries, want 1", tw.name, len(entries))
		}
	}
	t.Logf("seed %d: tree of %d entries; calls per tool [ok failed]: %v; files with kept bytes: %d", seed, len(tree), tally, len(diverged))
	return calls
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFilesystemDifferentialGenerated runs the generated cases (see the
// top of this file) for each seed.
func TestFilesystemDifferentialGenerated(t *testing.T) {
	ready(t)
	seeds, steps := genSeeds(t)
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			n := runGenerated(t, seed, steps)
			t.Logf("seed %d: %d generated calls to each server", seed, n)
		})
	}
}

// TestFilesystemDecodingOracle: read_multiple_files of files of random
// bytes (biased to the edges of UTF-8's ranges) gives the text Node gives:
// one U+FFFD per maximal subpart of an ill-formed sequence.
func TestFilesystemDecodingOracle(t *testing.T) {
	ready(t)
	edges := []byte{0x0a, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff}
	r := rand.New(rand.NewPCG(27, 6))
	files := make([][]byte, 400)
	for i := range files {
		files[i] = make([]byte, r.IntN(16))
		for j := range files[i] {
			files[i][j] = edges[r.IntN(len(edges))]
		}
	}
	ref, boris := startFsTwinsWith(t, func(p string) {
		if err := os.MkdirAll(filepath.Join(p, "ws"), 0o755); err != nil {
			t.Fatal(err)
		}
		for i, b := range files {
			if err := os.WriteFile(filepath.Join(p, "ws", fmt.Sprintf("f%03d", i)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	for from := 0; from < len(files); from += 100 {
		var paths []string
		for i := from; i < from+100; i++ {
			paths = append(paths, fmt.Sprintf("$P/ws/f%03d", i))
		}
		args, _ := json.Marshal(map[string]any{"paths": paths})
		c := fsCall{tool: "read_multiple_files", args: string(args)}
		want, _ := callFs(t, ref, c)
		got, _ := callFs(t, boris, c)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("files %d to %d (-server-filesystem +boris):\n%s", from, from+99, diff)
		}
	}
}
