package boris

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mjkoo/boris/core/toolkit"
	"github.com/mjkoo/boris/internal/flagenv"
)

// openStat opens a resolved path through the policy and stats the open
// file, so what is described is what was opened: a regular file or a
// directory (the policy refuses FIFOs and devices without blocking on
// them). The caller closes it.
func (b *tools) openStat(abs string) (*os.File, fs.FileInfo, error) {
	return b.d.Policy().OpenStat(abs)
}

// readForEdit reads the whole of a regular file an editing tool will
// rewrite, refusing directories and files over --max-file-size.
func (b *tools) readForEdit(abs string) ([]byte, error) {
	return toolkit.ReadForEdit(b.d.Policy(), abs, b.opt.MaxFileSize)
}

// lineOf returns the 1-based line number of byte offset off in data.
func lineOf(data []byte, off int) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// snippet renders lines first..last of data (clamped) in cat -n style, in
// at most about toolkit.MaxResultText bytes: a huge edit is shown in part.
func snippet(data []byte, first, last int) string {
	var sb strings.Builder
	first = max(first, 1)
	_, _ = scanLines(bytes.NewReader(data), func(l line) bool {
		if l.num < first {
			return true
		}
		if l.num > first && sb.Len()+numberedLen(l) > toolkit.MaxResultText {
			fmt.Fprintf(&sb, "[... shown up to line %d of %d: a result holds at most %s of text; view the file with a view_range for the rest]\n",
				l.num-1, last, flagenv.Size(toolkit.MaxResultText))
			return false
		}
		writeNumbered(&sb, l)
		return l.num < last
	})
	return sb.String()
}
