package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestWalkRefusesSwappedDirectory: every operation that walks below an
// allowed directory, finding (Lstat, ReadDirInfo, Rename) or making
// (MkdirAll, WriteFile) its directories, is refused once a directory on
// its way has been swapped for a link out, or into a denied directory,
// absolute or relative, after the path was resolved; nothing where the
// link leads is read, listed or changed.
func TestWalkRefusesSwappedDirectory(t *testing.T) {
	targets := []struct {
		name   string
		target func(f *fixture) string
	}{
		{"absolute to outside", func(f *fixture) string { return f.outside }},
		{"relative to outside", func(f *fixture) string { return "../outside" }},
		{"relative out and back", func(f *fixture) string { return "../allowed/../outside" }},
		{"relative into denied", func(f *fixture) string { return "secrets" }},
		{"absolute into denied", func(f *fixture) string { return f.a("secrets") }},
	}
	ops := []struct {
		name string
		op   func(f *fixture) error
	}{
		{"Lstat", func(f *fixture) error { _, err := f.p.Lstat(f.a("work/deep/file.txt")); return err }},
		{"ReadDirInfo", func(f *fixture) error { _, err := f.p.ReadDirInfo(f.a("work/deep")); return err }},
		{"Rename out of it", func(f *fixture) error { return f.p.Rename(f.a("work/deep/file.txt"), f.a("sub/stolen.txt")) }},
		{"MkdirAll", func(f *fixture) error { return f.p.MkdirAll(f.a("work/deep/made/deeper")) }},
		{"WriteFile", func(f *fixture) error { return f.p.WriteFile(f.a("work/deep/made/new.txt"), []byte("pwned"), 0o644) }},
	}
	for _, tc := range targets {
		for _, op := range ops {
			t.Run(tc.name+"/"+op.name, func(t *testing.T) {
				f := newFixture(t)
				for _, d := range []string{f.outside, f.a("secrets")} { // what a redirected walk would find
					writeTestFile(t, filepath.Join(d, "deep", "file.txt"), "precious")
				}
				writeTestFile(t, f.a("work/deep/file.txt"), "mine")
				check := f.untouched(t)
				swap(t, f.a("work"), tc.target(f))
				wantDenied(t, op.op(f), "")
				check()
			})
		}
	}
}

// TestWalkDotDot: a path whose .. components lead out of the allowed
// directory, or into a denied one, is refused by finding and making walks
// alike, and one whose .. stays inside is walked.
func TestWalkDotDot(t *testing.T) {
	f := newFixture(t)
	check := f.untouched(t)
	for _, path := range []string{
		f.allowed + "/work/../../outside/made",
		f.allowed + "/sub/../secrets/made",
		f.allowed + "/../outside/made",
	} {
		wantDenied(t, f.p.MkdirAll(path), "")
		if _, err := f.p.Lstat(path + "/x"); !errors.Is(err, ErrDenied) {
			t.Errorf("Lstat(%s/x): got %v, want one wrapping ErrDenied", path, err)
		}
		wantDenied(t, f.p.WriteFile(path+"/x", []byte("pwned"), 0o644), "")
	}
	check()
	inside := f.allowed + "/work/../sub/made"
	if err := f.p.MkdirAll(inside); err != nil {
		t.Fatalf("MkdirAll(%s): got %v, want nil", inside, err)
	}
	if fi, err := f.p.Lstat(f.a("sub/made")); err != nil || !fi.IsDir() {
		t.Errorf("Lstat(sub/made) after MkdirAll: got %v, %v; want the directory", fi, err)
	}
}

// TestWalkMissingComponent: the finding walk makes nothing and says the
// path does not exist; the making walk makes every missing directory.
func TestWalkMissingComponent(t *testing.T) {
	f := newFixture(t)
	if _, err := f.p.Lstat(f.a("work/none/deeper/x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat below a missing directory: got %v, want one wrapping fs.ErrNotExist", err)
	}
	if _, err := os.Lstat(f.a("work/none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat made work/none: %v", err)
	}
	if err := f.p.WriteFile(f.a("work/none/deeper/x"), []byte("x"), 0o644); err != nil {
		t.Fatalf("WriteFile below missing directories: got %v, want nil", err)
	}
	if got, err := os.ReadFile(f.a("work/none/deeper/x")); err != nil || string(got) != "x" {
		t.Errorf("the file written: got %q, %v", got, err)
	}
}

// TestWalkRace: while a directory flips between itself and a link out of
// the allowed directory, walks that find and walks that make run against
// it; each either acts inside or is refused, and nothing is ever made or
// read where the link leads.
func TestWalkRace(t *testing.T) {
	f := newFixture(t)
	writeTestFile(t, filepath.Join(f.outside, "deep", "file.txt"), "precious")
	writeTestFile(t, f.a("work/deep/file.txt"), "mine")
	check := f.untouched(t)
	work := f.a("work")
	if err := os.Rename(work, work+".real"); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // flips work between the real directory and a link out
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			target := work + ".real"
			if i%2 == 1 {
				target = f.outside
			}
			os.Remove(work + ".tmp")
			if err := os.Symlink(target, work+".tmp"); err == nil {
				os.Rename(work+".tmp", work)
			}
		}
	}()
	for range 300 {
		if fi, err := f.p.Lstat(f.a("work/deep/file.txt")); err == nil && fi.Size() != int64(len("mine")) {
			t.Errorf("Lstat saw the outside file (size %d)", fi.Size())
		}
		if err := f.p.MkdirAll(f.a("work/deep/made")); err != nil && !errors.Is(err, ErrDenied) {
			t.Errorf("MkdirAll: got %v, want nil or ErrDenied", err)
		}
		if err := f.p.WriteFile(f.a("work/deep/new.txt"), []byte("mine too"), 0o644); err != nil && !errors.Is(err, ErrDenied) {
			t.Errorf("WriteFile: got %v, want nil or ErrDenied", err)
		}
	}
	stop.Store(true)
	wg.Wait()
	check()
	for _, name := range []string{"made", "new.txt"} {
		if _, err := os.Lstat(filepath.Join(f.outside, "deep", name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s made outside the allowed directory: %v", name, err)
		}
	}
}
