package test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlock returns the first fenced code block of the documentation page
// page (a path from the repository's root) after the heading line heading.
func docBlock(t *testing.T, page, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", page, heading)
	}
	_, block, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("%s has no code block after %q", page, heading)
	}
	_, block, _ = strings.Cut(block, "\n") // the fence's language
	block, _, _ = strings.Cut(block, "```")
	return block
}

// readmeOutputRe matches a comment that shows what a line prints.
var readmeOutputRe = regexp.MustCompile(`^(Created|Started|Deleted|Cancelled|Reopened|Done) W-\d+ \[`)

// TestReadmeTasksExample runs the boris tasks block of the work-tracking
// page (docs/board.md#boris-tasks) top to bottom
// on a fresh board, each line as the shell runs it with the built boris on
// PATH: every line succeeds, and a comment showing output is what it
// prints ("..." standing for the rest of the line).
func TestReadmeTasksExample(t *testing.T) {
	block := docBlock(t, "docs/board.md", "## `boris tasks`")
	env := cleanEnv("BORIS_TASKS_DB="+filepath.Join(realTempDir(t), "boris.db"), "PATH="+filepath.Dir(borisBin)+":"+os.Getenv("PATH"))
	lines := 0
	for line := range strings.Lines(block) {
		command, comment, _ := strings.Cut(strings.TrimSpace(line), "  # ")
		if command == "" {
			continue
		}
		lines++
		cmd := exec.Command("bash", "-c", command)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Errorf("%s: %v (stdout %q, stderr %q), want it to succeed", command, err, out, stderr)
			continue
		}
		comment = strings.TrimSpace(comment)
		if readmeOutputRe.MatchString(comment) {
			want, _, _ := strings.Cut(comment, "...")
			if !strings.HasPrefix(string(out), want) {
				t.Errorf("%s: printed %q, want %q as its comment says", command, out, comment)
			}
		}
	}
	if lines < 10 {
		t.Errorf("docs/board.md's boris tasks block: got %d commands, want the whole example", lines)
	}
}

// TestReadmeClientCommands: every client configuration in README.md and
// the pages of docs/ that starts boris names the binary by its path, as
// make build leaves it: nothing puts a bare "boris" on a client's PATH (the
// filesystem example once said "command": "boris").
func TestReadmeClientCommands(t *testing.T) {
	pages := []string{"../README.md"}
	err := filepath.WalkDir("../docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bare := regexp.MustCompile(`"command": "boris"|claude mcp add \S+ -- boris `)
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := bare.FindString(line); m != "" {
				t.Errorf("%s:%d: %q starts boris by a bare name; want its path (/path/to/boris/bin/boris)", page, i+1, m)
			}
		}
	}
}
