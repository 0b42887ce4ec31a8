package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrReplaceBytesExact edits fixtures whose formatting must survive:
// everything outside the replaced span is compared byte for byte.
func TestStrReplaceBytesExact(t *testing.T) {
	tests := []struct {
		name, before, old, new, after string
	}{
		{"crlf", "first\r\nsecond\r\nthird\r\n", "second", "2nd", "first\r\n2nd\r\nthird\r\n"},
		{"crlf multi-line old_str sent with LF", "a\r\nb\r\nc\r\n", "a\nb", "x\ny", "x\r\ny\r\nc\r\n"},
		{"bom", "\ufeffpackage main\n\nfunc main() {}\n", "main() {}", "main() { run() }", "\ufeffpackage main\n\nfunc main() { run() }\n"},
		{"tabs", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", "\t\treturn 1", "\t\treturn 2", "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n"},
		{"no final newline", "one\ntwo", "two", "three", "one\nthree"},
		{"delete with omitted new_str", "keep\ndrop me\nkeep\n", "drop me\n", "", "keep\nkeep\n"},
		{"mixed endings", "unix\nwin\r\nmac\n", "win", "WIN", "unix\nWIN\r\nmac\n"},
	}
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".txt")
			writeFile(t, path, tt.before)
			args := map[string]any{"path": path, "old_str": tt.old}
			if tt.new != "" {
				args["new_str"] = tt.new
			}
			c.ok("str_replace", args)
			if got := readFile(t, path); got != tt.after {
				t.Errorf("got %q, want %q", got, tt.after)
			}
		})
	}
}

func TestStrReplace(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)
	path := filepath.Join(dir, "f.go")

	t.Run("unique match shows snippet", func(t *testing.T) {
		writeFile(t, path, "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")
		got := c.ok("str_replace", map[string]any{"path": "f.go", "old_str": "e\n", "new_str": "E1\nE2\n"})
		assertInOrder(t, got, []string{"     1\ta\n", "     5\tE1\n", "     6\tE2\n", "    10\ti\n"})
		if strings.Contains(got, "\tj\n") {
			t.Errorf("got %q, want the snippet to stop 4 lines after the edit", got)
		}
	})
	t.Run("ambiguous lists every line", func(t *testing.T) {
		writeFile(t, path, "x := 1\ny := 2\nx := 1\n\nx := 1\n")
		got := c.fails("AMBIGUOUS_MATCH", "str_replace", map[string]any{"path": "f.go", "old_str": "x := 1", "new_str": "x := 3"})
		if !strings.Contains(got, "3 times") || !strings.Contains(got, "lines 1, 3, 5") {
			t.Errorf("got %q, want count 3 and lines 1, 3, 5", got)
		}
		if got := readFile(t, path); got != "x := 1\ny := 2\nx := 1\n\nx := 1\n" {
			t.Errorf("file changed after a refused edit: %q", got)
		}
	})
	t.Run("replace_all counts", func(t *testing.T) {
		writeFile(t, path, "x := 1\ny := 2\nx := 1\n\nx := 1\n")
		got := c.ok("str_replace", map[string]any{"path": "f.go", "old_str": "x := 1", "new_str": "x := 3", "replace_all": true})
		if !strings.Contains(got, "Replaced 3 occurrences") {
			t.Errorf("got %q, want the count of 3", got)
		}
		if got, want := readFile(t, path), "x := 3\ny := 2\nx := 3\n\nx := 3\n"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("not found", func(t *testing.T) {
		writeFile(t, path, "hello\n")
		c.fails("NOT_FOUND_IN_FILE", "str_replace", map[string]any{"path": "f.go", "old_str": "goodbye", "new_str": "x"})
	})
	t.Run("empty old_str", func(t *testing.T) {
		c.fails("INVALID_INPUT", "str_replace", map[string]any{"path": "f.go", "old_str": "", "new_str": "x"})
	})
	t.Run("identical strings", func(t *testing.T) {
		c.fails("INVALID_INPUT", "str_replace", map[string]any{"path": "f.go", "old_str": "hello", "new_str": "hello"})
	})
	t.Run("missing file", func(t *testing.T) {
		c.fails("PATH_NOT_FOUND", "str_replace", map[string]any{"path": "gone.go", "old_str": "a", "new_str": "b"})
	})
	t.Run("directory", func(t *testing.T) {
		c.fails("IS_DIRECTORY", "str_replace", map[string]any{"path": ".", "old_str": "a", "new_str": "b"})
	})
	t.Run("mode preserved", func(t *testing.T) {
		script := filepath.Join(dir, "run.sh")
		writeFile(t, script, "#!/bin/sh\necho old\n")
		if err := os.Chmod(script, 0o751); err != nil {
			t.Fatal(err)
		}
		c.ok("str_replace", map[string]any{"path": "run.sh", "old_str": "old", "new_str": "new"})
		assertMode(t, script, 0o751)
	})
}

func TestStrReplaceTooLarge(t *testing.T) {
	dir := realTempDir(t)
	writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("a", 2048))
	c := startCore(t, "--workdir", dir, "--max-file-size", "1KB")
	c.fails("FILE_TOO_LARGE", "str_replace", map[string]any{"path": "big.txt", "old_str": "a", "new_str": "b", "replace_all": true})
	c.fails("FILE_TOO_LARGE", "create_file", map[string]any{"path": "new.txt", "content": strings.Repeat("b", 2048)})
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("refused create_file left a file behind: %v", err)
	}
}

func TestCreateFile(t *testing.T) {
	dir := realTempDir(t)
	c := startCore(t, "--workdir", dir)

	t.Run("creates parents", func(t *testing.T) {
		got := c.ok("create_file", map[string]any{"path": "a/b/c.txt", "content": "hi\r\nthere"})
		if !strings.HasPrefix(got, "Created ") {
			t.Errorf("got %q, want Created ...", got)
		}
		if got := readFile(t, filepath.Join(dir, "a/b/c.txt")); got != "hi\r\nthere" {
			t.Errorf("got %q, want exact bytes", got)
		}
	})
	t.Run("overwrite keeps mode", func(t *testing.T) {
		path := filepath.Join(dir, "tool.sh")
		writeFile(t, path, "old")
		if err := os.Chmod(path, 0o700); err != nil {
			t.Fatal(err)
		}
		got := c.ok("create_file", map[string]any{"path": "tool.sh", "content": "new"})
		if !strings.HasPrefix(got, "Overwrote ") {
			t.Errorf("got %q, want Overwrote ...", got)
		}
		if got := readFile(t, path); got != "new" {
			t.Errorf("got %q, want new", got)
		}
		assertMode(t, path, 0o700)
	})
	t.Run("empty content", func(t *testing.T) {
		c.ok("create_file", map[string]any{"path": "empty", "content": ""})
		if got := readFile(t, filepath.Join(dir, "empty")); got != "" {
			t.Errorf("got %q, want empty", got)
		}
	})
	t.Run("directory refused", func(t *testing.T) {
		c.fails("IS_DIRECTORY", "create_file", map[string]any{"path": "a", "content": "x"})
	})
	t.Run("parent is a file", func(t *testing.T) {
		c.fails("IO_ERROR", "create_file", map[string]any{"path": "tool.sh/x.txt", "content": "x"})
	})
	t.Run("missing content", func(t *testing.T) {
		c.fails("INVALID_INPUT", "create_file", map[string]any{"path": "x.txt"})
	})
	t.Run("no temp files left", func(t *testing.T) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got, want := strings.Join(names, " "), "a empty tool.sh"; got != want {
			t.Errorf("directory holds %q, want %q", got, want)
		}
	})
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("mode of %s: got %o, want %o", path, got, want)
	}
}
