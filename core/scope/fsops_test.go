package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestMkdirAll(t *testing.T) {
	f := newFixture(t)
	dir := f.a("new/deeper/deepest")
	if err := f.p.MkdirAll(dir); err != nil {
		t.Fatalf("MkdirAll(%s): got %v, want nil", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("after MkdirAll: stat %s: %v, want a directory", dir, err)
	}
	if err := f.p.MkdirAll(dir); err != nil {
		t.Errorf("MkdirAll of an existing directory: got %v, want nil", err)
	}
	if err := f.p.MkdirAll(f.a("sub/file.txt/x")); err == nil {
		t.Errorf("MkdirAll through a file: got nil, want an error")
	}
}

func TestMkdirAllRefused(t *testing.T) {
	f := newFixture(t)
	check := f.untouched(t)
	for _, abs := range []string{
		filepath.Join(f.outside, "made"),
		f.a("secrets/made"),
		f.a("linkout/made"), // lexically inside, through a link leading out
	} {
		wantDenied(t, f.p.MkdirAll(abs), "")
	}
	// A directory on the way swapped for a link leading out.
	swap(t, f.a("work"), f.outside)
	wantDenied(t, f.p.MkdirAll(f.a("work/made")), "")
	check()
}

func TestRename(t *testing.T) {
	f := newFixture(t)
	src, dst := f.a("work/file.txt"), f.a("sub/moved.txt")
	if err := f.p.Rename(src, dst); err != nil {
		t.Fatalf("Rename: got %v, want nil", err)
	}
	if got := readAll(t, f.p, dst); got != "content of allowed/work/file.txt" {
		t.Errorf("moved file holds %q, want the original content", got)
	}
	if _, err := os.Lstat(src); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("source after Rename: lstat error %v, want not exist", err)
	}
	// A directory moves too.
	if err := f.p.Rename(f.a("work"), f.a("work2")); err != nil {
		t.Errorf("Rename of a directory: got %v, want nil", err)
	}
}

func TestRenameRefusesExisting(t *testing.T) {
	for _, dst := range []string{"sub/file.txt", "sub", "linkin", "dangling"} {
		t.Run(dst, func(t *testing.T) {
			f := newFixture(t)
			before, _ := os.Readlink(f.a(dst))
			err := f.p.Rename(f.a("work/file.txt"), f.a(dst))
			if !errors.Is(err, fs.ErrExist) {
				t.Fatalf("Rename onto existing %s: got %v, want an error wrapping fs.ErrExist", dst, err)
			}
			if _, err := os.Stat(f.a("work/file.txt")); err != nil {
				t.Errorf("source after refused Rename: %v, want it still there", err)
			}
			if after, _ := os.Readlink(f.a(dst)); after != before {
				t.Errorf("destination link changed from %q to %q", before, after)
			}
		})
	}
}

func TestRenameRefused(t *testing.T) {
	f := newFixture(t)
	check := f.untouched(t)
	tests := []struct{ name, src, dst string }{
		{"destination outside", f.a("work/file.txt"), filepath.Join(f.outside, "stolen.txt")},
		{"destination denied", f.a("work/file.txt"), f.a("secrets/x.txt")},
		{"source denied", f.a("secrets/key.txt"), f.a("sub/key.txt")},
		{"source outside", filepath.Join(f.outside, "secret.txt"), f.a("sub/secret.txt")},
		{"through a link out", f.a("work/file.txt"), f.a("linkout/x.txt")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantDenied(t, f.p.Rename(tc.src, tc.dst), "") })
	}
	check()
	if err := f.p.Rename(f.allowed, f.a("sub/root")); err == nil {
		t.Errorf("Rename of the allowed directory itself: got nil, want an error")
	}
}

func TestRenameSwapRace(t *testing.T) {
	for _, target := range []string{"outside", "secrets"} {
		t.Run(target, func(t *testing.T) {
			f := newFixture(t)
			writeTestFile(t, filepath.Join(f.outside, "file.txt"), "precious")
			writeTestFile(t, f.a("secrets/file.txt"), "precious")
			dst := f.a("work/landed.txt")
			check := f.untouched(t)
			link := f.outside
			if target == "secrets" {
				link = f.a("secrets")
			}
			swap(t, f.a("work"), link) // both paths were resolved before the swap
			wantDenied(t, f.p.Rename(f.a("sub/file.txt"), dst), "")
			wantDenied(t, f.p.Rename(f.a("work/file.txt"), f.a("sub/stolen.txt")), "")
			check()
		})
	}
}

func TestReadDirInfo(t *testing.T) {
	f := newFixture(t)
	infos, err := f.p.ReadDirInfo(f.allowed)
	if err != nil {
		t.Fatalf("ReadDirInfo: got %v, want nil", err)
	}
	var names []string
	for _, fi := range infos {
		names = append(names, fi.Name())
	}
	want := []string{"dangling", "danglingin", "dir with space", "linkfile", "linkin", "linkout", "sub", "tosecret", "work", "ünïcødé"}
	if !slices.Equal(names, want) {
		t.Errorf("ReadDirInfo names: got %q, want %q (sorted, denied entries left out)", names, want)
	}
	for _, fi := range infos {
		if fi.Name() == "linkout" && fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("linkout: mode %v, want a symlink (described, not followed)", fi.Mode())
		}
	}
	if _, err := f.p.ReadDirInfo(f.a("linkout")); err == nil {
		t.Errorf("ReadDirInfo through a link leading out: got nil, want a refusal")
	}
	if _, err := f.p.ReadDirInfo(f.a("secrets")); !errors.Is(err, ErrDenied) {
		t.Errorf("ReadDirInfo of a denied dir: got %v, want ErrDenied", err)
	}
}

func TestLstat(t *testing.T) {
	f := newFixture(t)
	fi, err := f.p.Lstat(f.a("linkout"))
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(linkout): got %v, %v, want a symlink", fi, err)
	}
	if fi, err := f.p.Lstat(f.allowed); err != nil || !fi.IsDir() {
		t.Errorf("Lstat(allowed dir): got %v, %v, want a directory", fi, err)
	}
	if _, err := f.p.Lstat(f.a("nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(missing): got %v, want fs.ErrNotExist", err)
	}
}
