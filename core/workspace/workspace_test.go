package workspace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"My First Workspace", "my-first-workspace"},
		{"  padded\tname\n", "padded-name"},
		{"a//b\\c:d*e?f\"g<h>i|j", "a-b-c-d-e-f-g-h-i-j"},
		{"---dashes---and   spaces---", "dashes-and-spaces"},
		{"../../etc/passwd", "etc-passwd"},
		{"..", ""},
		{"Ünïcödé Naïve café", "ünïcödé-naïve-café"},
		{"snake_case.v2", "snake_case.v2"},
		{strings.Repeat("x", 70), strings.Repeat("x", 64)},
		{strings.Repeat("ab ", 40), strings.TrimSuffix(strings.Repeat("ab-", 22)[:64], "-")},
		{"!!!", ""},
		{"", ""},
	} {
		got, err := Slug(tc.name)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Slug(%q) = %q, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Slug(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
		if len([]rune(got)) > MaxSlug || !ValidID(got) {
			t.Errorf("Slug(%q) = %q: longer than %d or not a valid id", tc.name, got, MaxSlug)
		}
	}
}

func TestValidIDRefusesPaths(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a/b", "../x", "A", "a b", "/abs", "x/../y"} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true, want false", id)
		}
	}
}

// testRoot is a Root under a temporary directory, running git directly.
func testRoot(t *testing.T) *Root {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("workspaces need the git binary, which is not on PATH")
	}
	r, err := Open(filepath.Join(t.TempDir(), "ws"), ExecRunner(gitPath, os.Environ(), nil, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCreateIsUniqueEvenConcurrently(t *testing.T) {
	r := testRoot(t)
	ctx := context.Background()
	first, err := r.Create(ctx, "My First Workspace")
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != "my-first-workspace" || first.Dir != filepath.Join(r.Dir(), "my-first-workspace") {
		t.Fatalf("first: got %+v", first)
	}
	if fi, err := os.Stat(filepath.Join(first.Dir, ".git")); err != nil || !fi.IsDir() {
		t.Fatalf("no git repository in the workspace: %v", err)
	}
	second, err := r.Create(ctx, "my first workspace")
	if err != nil || second.ID != "my-first-workspace-2" {
		t.Fatalf("second: got %+v, %v; want my-first-workspace-2", second, err)
	}

	const n = 8
	ids := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ws, err := r.Create(ctx, "race")
			if err != nil {
				t.Error(err)
				return
			}
			ids <- ws.ID
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %s handed out twice", id)
		}
		seen[id] = true
	}
	if len(seen) != n || !seen["race"] || !seen[fmt.Sprintf("race-%d", n)] {
		t.Errorf("concurrent creates got %v, want race, race-2 ... race-%d", seen, n)
	}
	list, err := r.List()
	if err != nil || len(list) != n+2 {
		t.Errorf("List: got %d workspaces (%v), want %d", len(list), err, n+2)
	}

	// A long name keeps its suffix within the limit.
	long := strings.Repeat("y", 80)
	a, _ := r.Create(ctx, long)
	b, err := r.Create(ctx, long)
	if err != nil || len(b.ID) > MaxSlug || b.ID == a.ID || !strings.HasSuffix(b.ID, "-2") {
		t.Errorf("long name twice: %q then %q (%v)", a.ID, b.ID, err)
	}
}

func TestGetRefusesWhatIsNotAWorkspace(t *testing.T) {
	r := testRoot(t)
	if err := os.Mkdir(filepath.Join(r.Dir(), "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"plain", "missing", "..", "../x", "/etc"} {
		if _, err := r.Get(id); err == nil {
			t.Errorf("Get(%q): want an error", id)
		}
	}
}

func TestCommitAndHistory(t *testing.T) {
	r := testRoot(t)
	ctx := context.Background()
	ws, err := r.Create(ctx, "hist")
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(ws.Dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("users/data.txt", "one")
	write("other.txt", "not part of the commit")
	h1, err := r.Commit(ctx, ws, "mcp/fs/write_file: Create users/data.txt", "users/data.txt")
	if err != nil || len(h1) != 40 {
		t.Fatalf("commit: %q, %v", h1, err)
	}
	// Nothing changed: no commit.
	if h, err := r.Commit(ctx, ws, "again", "users/data.txt"); err != nil || h != "" {
		t.Fatalf("commit of an unchanged file: %q, %v; want none", h, err)
	}
	// A move: the old path (tracked) and the new one.
	if err := os.Rename(filepath.Join(ws.Dir, "users/data.txt"), filepath.Join(ws.Dir, "moved.txt")); err != nil {
		t.Fatal(err)
	}
	h2, err := r.Commit(ctx, ws, "mcp/fs/move_file: Move users/data.txt -> moved.txt", "users/data.txt", "moved.txt")
	if err != nil || h2 == "" || h2 == h1 {
		t.Fatalf("move commit: %q, %v", h2, err)
	}
	// An empty directory gets a .gitkeep; a path gone that git never knew is skipped.
	if err := os.Mkdir(filepath.Join(ws.Dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	h3, err := r.Commit(ctx, ws, "mcp/fs/create_directory: Create empty", "empty", "never-tracked.txt")
	if err != nil || h3 == "" {
		t.Fatalf("directory commit: %q, %v", h3, err)
	}

	log, err := r.History(ctx, ws, "", 10)
	if err != nil || len(log) != 3 {
		t.Fatalf("history: %+v, %v; want 3 commits", log, err)
	}
	if log[0].Commit != h3 || log[2].Message != "mcp/fs/write_file: Create users/data.txt" || log[0].Author != "boris <boris@localhost>" {
		t.Errorf("history: got %+v", log)
	}
	perPath, err := r.History(ctx, ws, "users/data.txt", 10)
	if err != nil || len(perPath) != 2 || perPath[0].Commit != h2 || perPath[1].Commit != h1 {
		t.Errorf("history of users/data.txt: got %+v, %v; want the move and the create", perPath, err)
	}
	if limited, _ := r.History(ctx, ws, "", 1); len(limited) != 1 {
		t.Errorf("limit 1: got %d commits", len(limited))
	}
	// other.txt was never committed: it is still untracked.
	out, err := exec.Command("git", "-C", ws.Dir, "status", "--porcelain").Output()
	if err != nil || !strings.Contains(string(out), "?? other.txt") {
		t.Errorf("status after commits: %q, %v; want other.txt untracked", out, err)
	}
}
