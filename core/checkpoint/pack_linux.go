package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// packMin is how many files a recording must add before their contents
// are written as one pack first. git writes each new object as a file of
// its own: on the first recording of a tree of 10,000 files that is
// 10,000 files created, about 15 s of system time on a 2-core host, where
// one pack of the same objects costs about a second.
const packMin = 128

// packFiles writes the contents of the regular files among paths (relative
// to the tree) into the shadow as one pack per call, through git
// fast-import, so that the update-index that follows finds every object
// stored and writes none of its own. It is only a speed-up: a file it
// skips (a link, one above the capture limit, one that cannot be read) or
// a failure leaves git to write the objects as before, and a file changed
// in between is hashed anew by update-index. Files are opened beneath the
// tree with no link followed at any component, so nothing outside the
// tree is ever read.
func (s *Store) packFiles(ctx context.Context, indexEnv []string, paths []string) {
	if len(paths) < packMin {
		return
	}
	tree, err := unix.Open(s.opts.Tree, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(tree)
	limit := int64(maxCaptureFile)
	if s.opts.MaxFileSize > 0 {
		limit = min(limit, s.opts.MaxFileSize)
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeBlobStream(pw, tree, paths, limit))
	}()
	// Loose objects use zlib's fastest level (core.looseCompression):
	// so does the pack, and no deltas are sought between unrelated files.
	_, err = s.runEnv(ctx, append(append([]string{}, s.env...), indexEnv...), pr,
		"-c", "pack.compression=1", "-c", "core.compression=1", "fast-import", "--quiet", "--depth=0")
	pr.CloseWithError(errors.New("fast-import ended")) // unblocks the writer if git stopped reading
	if err != nil {
		s.opts.Log.Debug("packing new files failed; git writes them one by one", "err", err)
	}
}

// writeBlobStream writes a fast-import stream of one blob per distinct
// content of the readable regular files of paths, then "done".
func writeBlobStream(w io.Writer, tree int, paths []string, limit int64) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.WriteString("feature done\n"); err != nil {
		return err
	}
	seen := map[oid]bool{} // copies of one file are one object: sent once
	for _, p := range paths {
		data, ok := readBeneath(tree, p, limit)
		if !ok {
			continue
		}
		o := hashObject("blob", data)
		if seen[o] {
			continue
		}
		seen[o] = true
		if _, err := fmt.Fprintf(bw, "blob\ndata %d\n", len(data)); err != nil {
			return err
		}
		if _, err := bw.Write(data); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("done\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// readBeneath reads the regular file rel beneath the directory tree, no
// link followed at any component and no FIFO waited on; false for
// anything else, or a file larger than limit.
func readBeneath(tree int, rel string, limit int64) ([]byte, bool) {
	fd, err := unix.Openat2(tree, filepath.FromSlash(rel), &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV,
	})
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > limit {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil, false
	}
	return data, true
}
