//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A private temporary directory is held, for as long as the boris that
// made it lives, by an exclusive flock(2) on the directory itself. The
// kernel drops the lock when that process ends, however it ends (SIGKILL
// included, when Close never runs), so a directory whose lock another
// process can take belongs to no live boris: the next boris to start
// under the same TMPDIR removes it (sweepTempDirs). The lock is on the
// open file description, so it holds across PID namespaces, and it is not
// inherited by commands (close-on-exec).

// tempDirPrefix begins the name of every private temporary directory. It
// differs from what boris used before it locked them ("boris-" and
// digits), so a boris of that version still running is never swept.
const tempDirPrefix = "boris-tmp-"

// makeTempDir creates a private temporary directory under root, resolved,
// and returns it with the open directory that holds its lock. A sweep by
// another boris can take the lock between the mkdir and the flock and
// remove the directory: then it is made again.
func makeTempDir(root string) (string, *os.File, error) {
	for range 10 {
		dir, err := os.MkdirTemp(root, tempDirPrefix)
		if err != nil {
			return "", nil, err
		}
		f, err := os.Open(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue // swept before it was opened
		}
		if err != nil {
			os.Remove(dir)
			return "", nil, err
		}
		if err := flock(f, syscall.LOCK_EX); err != nil {
			f.Close()
			os.Remove(dir)
			return "", nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &st); err != nil || st.Nlink == 0 {
			f.Close() // swept before it was locked
			continue
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			f.Close()
			os.RemoveAll(dir)
			return "", nil, err
		}
		return real, f, nil
	}
	return "", nil, errors.New("other borises sweeping the same directory removed it ten times in a row")
}

// sweepTempDirs removes the private temporary directories under root that
// no live process holds: those left by a boris that was killed. Only real
// directories owned by this user are considered; keep is never touched.
// It returns how many it removed.
func sweepTempDirs(root, keep string) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !isTempDirName(e.Name()) {
			continue // a symlink is not a directory here (no stat is followed)
		}
		path := filepath.Join(root, e.Name())
		if path != keep && sweepOne(path) {
			removed++
		}
	}
	return removed
}

// isTempDirName reports whether name is one os.MkdirTemp gives for
// tempDirPrefix: the prefix and a random decimal number. A directory of
// any other name is never swept, whoever made it.
func isTempDirName(name string) bool {
	digits, ok := strings.CutPrefix(name, tempDirPrefix)
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sweepOne removes the directory at path if it is a directory of this
// user whose lock it can take, holding the lock while it removes it.
func sweepOne(path string) bool {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || int(st.Uid) != os.Getuid() {
		return false
	}
	if flock(f, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // alive, or being swept by another boris
	}
	return os.RemoveAll(path) == nil
}

// flock applies how to f, retrying when a signal interrupts the wait.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
