//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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

// tempDirName is a fresh name for a private temporary directory: the
// prefix and a random decimal number, as os.MkdirTemp would name it.
func tempDirName() string {
	return tempDirPrefix + strconv.FormatUint(rand.Uint64(), 10)
}

// makeTempDir creates the private temporary directory dir and returns the
// open directory that holds its lock. Anything already at dir (another
// user's directory or link, in a shared /tmp) is an error, never used. A
// sweep by another boris can take the lock between the mkdir and the
// flock and remove the directory: then it is made again.
func makeTempDir(dir string) (*os.File, error) {
	for range 10 {
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, err
		}
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if errors.Is(err, syscall.ENOENT) {
			continue // swept before it was opened
		}
		if err != nil {
			os.Remove(dir)
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		f := os.NewFile(uintptr(fd), dir)
		if err := flock(f, syscall.LOCK_EX); err != nil {
			f.Close()
			os.Remove(dir)
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Nlink == 0 {
			f.Close() // swept before it was locked
			continue
		}
		return f, nil
	}
	return nil, errors.New("other borises sweeping the same directory removed it ten times in a row")
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
	// The lock is on what was opened; the removal goes by path. A boris
	// whose directory was swept makes it again under the same name, so
	// the path must still be what was locked.
	var now syscall.Stat_t
	if err := syscall.Lstat(path, &now); err != nil || now.Dev != st.Dev || now.Ino != st.Ino {
		return false
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
