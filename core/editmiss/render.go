package editmiss

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxWindow caps the lines of the closest window a Miss shows.
const MaxWindow = 40

// maxLineShown caps each line of the window shown, in bytes.
const maxLineShown = 300

// String renders the diagnosis for the agent: the closest window as
// view numbers it, why it differs, and the other places it matches as
// well; it follows the edit's error text.
func (m Miss) String() string {
	var sb strings.Builder
	if m.First == 0 {
		sb.WriteString("Nothing in the file resembles old_str.")
		m.writeGaveUp(&sb)
		return sb.String()
	}
	what := "The closest text"
	if !m.Close {
		what = "No text in the file is close to old_str; the most similar"
	}
	fmt.Fprintf(&sb, "%s is at %s, as the file reads now:\n", what, lineSpan(m.First, m.Last))
	m.writeWindow(&sb)
	if len(m.Causes) > 0 {
		sb.WriteString("Why it does not match:\n")
		for _, c := range m.Causes {
			fmt.Fprintf(&sb, "- %s\n", c)
		}
	}
	if len(m.Others) > 0 {
		fmt.Fprintf(&sb, "It matches as closely at %s too.\n", lineList(m.Others))
	}
	m.writeGaveUp(&sb)
	return strings.TrimSuffix(sb.String(), "\n")
}

// writeWindow writes the window's lines in view's numbering.
func (m Miss) writeWindow(sb *strings.Builder) {
	for i, l := range m.Window {
		l = strings.TrimSuffix(l, "\r")
		if len(l) > maxLineShown {
			l = l[:maxLineShown] + fmt.Sprintf(" [... line cut at %d bytes]", maxLineShown)
		}
		fmt.Fprintf(sb, "%6d\t%s\n", m.First+i, l)
	}
	if shown := m.First + len(m.Window) - 1; shown < m.Last {
		fmt.Fprintf(sb, "[... lines %d–%d not shown]\n", shown+1, m.Last)
	}
}

// writeGaveUp says when the search did not reach the end of the file.
func (m Miss) writeGaveUp(sb *strings.Builder) {
	if m.GaveUp > 0 {
		fmt.Fprintf(sb, "\nThe search gave up after line %d of the file: what lies past it was not compared.", m.GaveUp)
	}
}

// lineSpan is "line 7" or "lines 7–9".
func lineSpan(first, last int) string {
	if first == last {
		return "line " + strconv.Itoa(first)
	}
	return fmt.Sprintf("lines %d–%d", first, last)
}

// lineList is "line 4" or "lines 4, 9, 12".
func lineList(lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	if len(parts) == 1 {
		return "line " + parts[0]
	}
	return "lines " + strings.Join(parts, ", ")
}
