package board

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A task's text is written by agents and is not to be trusted: shown to a
// person in a terminal, an escape sequence in it could rewrite the screen,
// and a newline could forge a line of the listing. Every text the board
// renders goes through clean.

// clean makes s safe to print: control characters (C0 and C1, escape and
// DEL included), bidirectional overrides and invalid bytes are shown as Go
// escapes (\x1b, \u202e). A newline is kept only when multiline is set,
// and then every line after the first is indented by indent, so that no
// line of a task's text can pass for a line of the layout around it.
func clean(s string, multiline bool, indent string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case r == '\n' && multiline:
			sb.WriteString("\n" + indent)
		case r == '\t':
			sb.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			if r < 0x80 {
				fmt.Fprintf(&sb, `\x%02x`, r)
			} else {
				fmt.Fprintf(&sb, `\u%04x`, r)
			}
		default:
			sb.WriteRune(r)
		}
		i += size
	}
	return sb.String()
}

// Line is t on one line, as lists show it:
//
//	W-3 [pending P2 ready] Fix the parser
//	W-4 [pending P3 blocked by W-3] Write its tests (part of W-1)
func Line(t Task) string {
	state := fmt.Sprintf("%s P%d", t.Status, t.Priority)
	switch {
	case t.Ready:
		state += " ready"
	case t.Status.Open():
		state += " blocked by " + strings.Join(t.BlockedBy, ", ")
	}
	line := fmt.Sprintf("%s [%s] %s", t.ID, state, clean(shorten(t.Description), false, ""))
	if t.ParentID != "" {
		line += " (part of " + t.ParentID + ")"
	}
	return line
}

// shorten cuts a description to lineRunes characters for a listing line;
// get_task and show print it whole.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= lineRunes {
		return s
	}
	return string([]rune(s)[:lineRunes]) + " [...]"
}

// Detail is t in full, as get_task and `boris tasks show` show it.
func Detail(t Task) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "id: %s\n", t.ID)
	fmt.Fprintf(&sb, "description: %s\n", clean(t.Description, true, "  "))
	status := string(t.Status)
	switch {
	case t.Ready:
		status += " (ready)"
	case t.Status.Open():
		status += " (waiting for an open blocker)"
	}
	fmt.Fprintf(&sb, "status: %s\n", status)
	fmt.Fprintf(&sb, "priority: %d\n", t.Priority)
	if t.ParentID != "" {
		fmt.Fprintf(&sb, "parent: %s\n", t.ParentID)
	}
	if len(t.BlockedBy) > 0 {
		fmt.Fprintf(&sb, "blocked by: %s\n", strings.Join(t.BlockedBy, ", "))
	}
	fmt.Fprintf(&sb, "created: %s\nupdated: %s\n", t.CreatedAt, t.UpdatedAt)
	for _, f := range []struct{ name, text string }{{"context", t.Context}, {"result", t.Result}} {
		if f.text != "" {
			fmt.Fprintf(&sb, "%s:\n  %s\n", f.name, clean(f.text, true, "  "))
		}
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// List is tasks one per line, with a note when more were left out.
func List(tasks []Task, more bool) string {
	if len(tasks) == 0 {
		return "No tasks."
	}
	lines := make([]string, len(tasks))
	for i, t := range tasks {
		lines[i] = Line(t)
	}
	text := strings.Join(lines, "\n")
	if more {
		text += fmt.Sprintf("\n[%d shown; more match: raise limit or narrow with status, ready or parent_id]", len(tasks))
	}
	return text
}

// BlockersText is b as get_blockers and `boris tasks show` describe it.
func BlockersText(b Blockers) string {
	var sb strings.Builder
	sb.WriteString(Line(b.Task))
	section := func(title string, tasks []Task) {
		if len(tasks) == 0 {
			fmt.Fprintf(&sb, "\n%s: none", title)
			return
		}
		fmt.Fprintf(&sb, "\n%s:", title)
		for _, t := range tasks {
			sb.WriteString("\n  " + Line(t))
		}
	}
	section("waits for", b.BlockedBy)
	section("blocks", b.Blocks)
	return sb.String()
}
