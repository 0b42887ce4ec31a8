package boris

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mjkoo/boris/core/editmiss"
	"github.com/mjkoo/boris/core/seen"
	"github.com/mjkoo/boris/core/toolkit"
)

// Anthropic's documented errors for str_replace (the text editor tool's
// "Handle errors" section), which the versioned editors put first.
const (
	anthropicNoMatch  = "Error: No match found for replacement. Please check your text and try again."
	anthropicMultiple = "Error: Found %d matches for replacement text. Please provide more context to make a unique match."
)

// saw notes that the session now knows abs as it is on disk: it viewed or
// wrote it.
func (b *tools) saw(abs string) {
	if fi, err := os.Stat(abs); err == nil {
		b.seen.Saw(abs, fi, b.d.Recorder())
	}
}

// staleness says who changed abs since the session last saw it; nil when
// it never saw it or nothing but its own edits changed it since.
func (b *tools) staleness(ctx context.Context, abs string) *seen.Stale {
	fi, err := os.Stat(abs)
	if err != nil {
		return nil
	}
	at, changed := b.seen.Since(abs, fi)
	if !changed {
		return nil
	}
	return seen.Check(ctx, b.d.Recorder(), abs, at)
}

// notFound is str_replace's NOT_FOUND_IN_FILE: the documented text, then
// where the closest text is and why it differs, and, when the file
// changed since the session saw it, who changed it and how near there.
func (b *tools) notFound(ctx context.Context, data []byte, old, abs string, st *seen.Stale) error {
	var sb strings.Builder
	if b.editorVersion().documented {
		sb.WriteString(anthropicNoMatch)
	} else {
		fmt.Fprintf(&sb, "old_str was not found in %s. It must match exactly, including whitespace and indentation.", abs)
	}
	m := editmiss.Diagnose(data, old, editmiss.Limits{})
	if st != nil {
		sb.WriteString("\n" + b.staleCause(ctx, st, abs, m))
	}
	sb.WriteString("\n" + m.String())
	sb.WriteString("\nNothing was changed.")
	return toolkit.Fail(toolkit.NotFoundInFile, "%s", sb.String())
}

// staleCause says that the text changed since the agent viewed it: by
// what, with the newest change's diff near the closest window.
func (b *tools) staleCause(ctx context.Context, st *seen.Stale, abs string, m editmiss.Miss) string {
	line := "The text changed since you last viewed it" + st.By()
	if len(st.Changes) == 0 || m.First == 0 {
		return line
	}
	c := st.Changes[0]
	diff := seen.DiffNear(ctx, b.d.Recorder(), c, abs, m.First, m.Last)
	if diff == "" {
		return line
	}
	return fmt.Sprintf("%s\nWhat %s changed near there:\n```diff\n%s```", line, c.Checkpoint.ID, diff)
}

// ambiguous is str_replace's AMBIGUOUS_MATCH: the documented text, then
// the line of every match.
func (b *tools) ambiguous(count int, data, old []byte, abs string) error {
	where := matchLines(data, old)
	if b.editorVersion().documented {
		return toolkit.Fail(toolkit.AmbiguousMatch, anthropicMultiple+" old_str occurs %s of %s.", count, where, abs)
	}
	return toolkit.Fail(toolkit.AmbiguousMatch, "old_str occurs %d times in %s, %s. Add surrounding lines to old_str to make it unique, or set replace_all to replace every occurrence",
		count, abs, where)
}
