package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// filesPerDir is how many files each leaf directory of the tree holds.
const filesPerDir = 100

// searchPattern is the search_files pattern: server-filesystem matches it
// with minimatch against each entry's path relative to the searched
// directory, so it finds the tree's test files at every depth.
const searchPattern = "**/*_test.go"

// treeStats counts what generateTree wrote: what a directory_tree and a
// search_files of the tree must report.
type treeStats struct {
	Files   int `json:"files"`
	Dirs    int `json:"dirs"`    // every directory below the root
	Matches int `json:"matches"` // files searchPattern matches
}

// leafDir names leaf directory i of the tree: three levels, 25 leaves
// under each top directory, 5 under each middle one (p00/q0/r0 ...).
func leafDir(i int) string {
	return filepath.Join(fmt.Sprintf("p%02d", i/25), fmt.Sprintf("q%d", i/5%5), fmt.Sprintf("r%d", i%5))
}

// fileName names file j of a leaf directory; every tenth is a test file.
func fileName(j int) string {
	if j%10 == 0 {
		return fmt.Sprintf("f%02d_test.go", j)
	}
	return fmt.Sprintf("f%02d.go", j)
}

// generateTree writes n small Go files under root, in leaf directories of
// filesPerDir three levels deep, the same for the same n, and returns what
// it wrote.
func generateTree(root string, n int) (treeStats, error) {
	var st treeStats
	dirs := map[string]bool{}
	for i := 0; i*filesPerDir < n; i++ {
		leaf := leafDir(i)
		if err := os.MkdirAll(filepath.Join(root, leaf), 0o755); err != nil {
			return st, fmt.Errorf("generate tree: %w", err)
		}
		for d := leaf; d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
		for j := 0; j < filesPerDir && i*filesPerDir+j < n; j++ {
			name := fileName(j)
			data := fmt.Appendf(nil, "package r%d\n\n// file %d of leaf %d\nvar x = %d\n", i%5, j, i, i*filesPerDir+j)
			if err := os.WriteFile(filepath.Join(root, leaf, name), data, 0o644); err != nil {
				return st, fmt.Errorf("generate tree: %w", err)
			}
			st.Files++
			if j%10 == 0 {
				st.Matches++
			}
		}
	}
	st.Dirs = len(dirs)
	return st, nil
}

// editFile is the file edit_file edits: its contents and the one edit,
// of the line in its middle, every call asks for.
type editFile struct {
	Path    string
	Data    []byte
	OldLine string
	NewLine string
}

// writeEditFile writes a file of lines Go-like lines at path.
func writeEditFile(path string, lines int) (editFile, error) {
	var buf bytes.Buffer
	ef := editFile{Path: path}
	for i := 1; i <= lines; i++ {
		line := fmt.Sprintf("\tvalue%04d := compute(%d, \"line %d of the edit fixture\") // keep", i, i*7, i)
		buf.WriteString(line + "\n")
		if i == lines/2 {
			ef.OldLine = line
			ef.NewLine = fmt.Sprintf("\tvalue%04d := recompute(%d, \"line %d, edited\") // changed", i, i*11, i)
		}
	}
	ef.Data = buf.Bytes()
	if err := os.WriteFile(path, ef.Data, 0o644); err != nil {
		return ef, fmt.Errorf("write edit fixture: %w", err)
	}
	return ef, nil
}

// twin is one server's copy of the fixture: the directory it serves, the
// small file it reads, the tree and the file it edits.
type twin struct {
	Dir   string // served directory, resolved through symlinks
	Small benchkit.Fixture
	Tree  string // the generated tree, Dir/tree
	Stats treeStats
	Edit  editFile
}

// writeTwin writes one copy of the fixture under dir.
func writeTwin(dir string, files, editLines int) (twin, error) {
	small, err := benchkit.WriteFixture(dir, prog)
	if err != nil {
		return twin{}, err
	}
	tw := twin{Dir: small.Dir, Small: small, Tree: filepath.Join(small.Dir, "tree")}
	if tw.Stats, err = generateTree(tw.Tree, files); err != nil {
		return twin{}, err
	}
	tw.Edit, err = writeEditFile(filepath.Join(small.Dir, "edit.go"), editLines)
	return tw, err
}
