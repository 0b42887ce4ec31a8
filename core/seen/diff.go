package seen

import (
	"context"
	"fmt"
	"strings"

	"github.com/mjkoo/boris/core/checkpoint"
)

// maxDiffLines caps the diff a miss shows of a change.
const maxDiffLines = 40

// DiffNear returns the hunks of change c's diff of abs that touch lines
// first to last of the file as c left it (with a few lines' slack), at
// most maxDiffLines lines; "" when none does or the diff cannot be read.
func DiffNear(ctx context.Context, rec *checkpoint.Recorder, c Change, abs string, first, last int) string {
	store := rec.Store()
	if store == nil {
		return ""
	}
	diff, err := store.Diff(ctx, c.Checkpoint.ID, abs)
	if err != nil {
		return ""
	}
	return hunksNear(diff, first, last)
}

// slack is how near a hunk must come to the window to be shown.
const slack = 3

// hunksNear keeps the hunks of a unified diff whose new side comes within
// slack lines of first..last.
func hunksNear(diff string, first, last int) string {
	var out []string
	keep := false
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		if strings.HasPrefix(l, "@@") {
			var a, b, c, d int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); err != nil {
				d = 1 // "@@ -a +c @@": one line
				_, _ = fmt.Sscanf(l, "@@ -%d +%d", &a, &c)
			}
			keep = c <= last+slack && c+d >= first-slack
		}
		if keep && len(out) < maxDiffLines {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}
