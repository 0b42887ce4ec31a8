package board

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/swaptest"
	"golang.org/x/sys/unix"
)

// boardWith creates a board at path holding one task described desc.
func boardWith(t *testing.T, path, desc string) {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustCreate(t, s, desc, NewTask{})
}

// descriptions lists the descriptions of the tasks on the board s.
func descriptions(t *testing.T, s *Store) string {
	t.Helper()
	tasks, _, err := s.List(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, task := range tasks {
		out = append(out, task.Description)
	}
	return strings.Join(out, ",")
}

// promptly runs open and fails the test if it has not returned in 10 s
// (an open blocked on a FIFO never returns).
func promptly(t *testing.T, open func() (*Store, error)) (*Store, error) {
	t.Helper()
	type result struct {
		s   *Store
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := open()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("opening the board has not returned after 10 s")
		return nil, nil
	}
}

// TestOpenRefusesLinksAndSpecialFiles: a board that is a symbolic link (to
// another principal's board), lies under one, or is a FIFO, a directory or
// a device is refused at once, by Open and OpenReadOnly alike, with an
// error saying why; nothing of the other board is read.
func TestOpenRefusesLinksAndSpecialFiles(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim", "boris.db")
	boardWith(t, victim, "the victim's plan")
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		want error // nil: refused, by SQLite's error
	}{
		{"link to another board", func(t *testing.T, path string) { must(t, os.Symlink(victim, path)) }, ErrLink},
		{"under a linked directory", func(t *testing.T, path string) {
			must(t, os.Remove(filepath.Dir(path)))
			must(t, os.Symlink(filepath.Dir(victim), filepath.Dir(path)))
		}, ErrLink},
		{"FIFO", func(t *testing.T, path string) { must(t, unix.Mkfifo(path, 0o600)) }, ErrNotRegular},
		{"directory", func(t *testing.T, path string) { must(t, os.Mkdir(path, 0o700)) }, ErrNotRegular},
		{"device", func(t *testing.T, path string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root: makes a device node like /dev/null")
			}
			must(t, unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))))
		}, ErrNotRegular},
		{"FIFO as -shm", func(t *testing.T, path string) {
			boardWith(t, path, "mine")
			_ = os.Remove(path + "-shm")
			must(t, unix.Mkfifo(path+"-shm", 0o600))
		}, nil},
	}
	for _, tc := range cases {
		for _, mode := range []string{"Open", "OpenReadOnly"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), ".boris", "boris.db")
				must(t, os.MkdirAll(filepath.Dir(path), 0o700))
				tc.make(t, path)
				s, err := promptly(t, func() (*Store, error) {
					if mode == "Open" {
						return Open(context.Background(), path)
					}
					return OpenReadOnly(context.Background(), path)
				})
				if err == nil {
					got := descriptions(t, s)
					s.Close()
					t.Fatalf("got a board holding %q, want it refused", got)
				}
				if tc.want != nil && (!errors.Is(err, tc.want) || !strings.Contains(err.Error(), path)) {
					t.Errorf("got %v, want an error wrapping %q naming %s", err, tc.want, path)
				}
			})
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenRacesSwappedLinks: while the board's file, or its directory, is
// swapped again and again with a symbolic link to another principal's
// board (rename(2) with RENAME_EXCHANGE, atomic), no open ever reads the
// other board: each is refused, or reads the board's own task.
func TestOpenRacesSwappedLinks(t *testing.T) {
	for _, what := range []string{"file", "directory"} {
		for _, mode := range []string{"Open", "OpenReadOnly"} {
			t.Run(what+"/"+mode, func(t *testing.T) {
				victim := filepath.Join(t.TempDir(), "victim", ".boris", "boris.db")
				boardWith(t, victim, "the victim's plan")
				home := t.TempDir()
				path := filepath.Join(home, ".boris", "boris.db")
				boardWith(t, path, "mine")
				a, b := path, filepath.Join(home, ".boris", "link.db")
				must(t, os.Symlink(victim, b))
				if what == "directory" {
					a, b = filepath.Dir(path), filepath.Join(home, "link")
					must(t, os.Symlink(filepath.Dir(victim), b))
				}
				swaps := swaptest.Start(t, a, b)
				refused, read := 0, 0
				// Until 25 opens have read the board and 25 were refused,
				// or for 2 s.
				for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && (read < 25 || refused < 25); {
					s, err := promptly(t, func() (*Store, error) {
						if mode == "Open" {
							return Open(context.Background(), path)
						}
						return OpenReadOnly(context.Background(), path)
					})
					if err != nil {
						refused++
						continue
					}
					got := descriptions(t, s)
					s.Close()
					if got != "mine" {
						t.Fatalf("an open during the swaps read %q, want only the board's own task (mine)", got)
					}
					read++
				}
				t.Logf("%d swaps; %d opens refused, %d read the board's own task", swaps.End(t, refused+read), refused, read)
			})
		}
	}
}

// TestOpenPinsDirectory: once a board is open, its directory replaced by a
// link to another principal's changes nothing: every later connection
// (and its -wal and -shm) still reaches the board's own files.
func TestOpenPinsDirectory(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim", ".boris", "boris.db")
	boardWith(t, victim, "the victim's plan")
	home := t.TempDir()
	path := filepath.Join(home, ".boris", "boris.db")
	boardWith(t, path, "mine")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.place.name, "/proc/self/fd/") {
		t.Skipf("SQLite opens the board by %s: /proc does not show the directory held open", s.place.name)
	}
	s.db.SetMaxIdleConns(0) // every statement on a new connection, opening the files again
	must(t, os.Rename(filepath.Dir(path), filepath.Join(home, "moved")))
	must(t, os.Symlink(filepath.Dir(victim), filepath.Dir(path)))
	mustCreate(t, s, "written after the swap", NewTask{})
	if got := descriptions(t, s); got != "mine,written after the swap" {
		t.Errorf("the board after its directory was replaced by a link: got %q, want its own tasks", got)
	}
	v, err := OpenReadOnly(context.Background(), victim)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if got := descriptions(t, v); got != "the victim's plan" {
		t.Errorf("the other board: got %q, want only its own task", got)
	}
}
