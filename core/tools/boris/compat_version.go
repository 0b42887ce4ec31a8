package boris

import (
	"fmt"
	"strconv"
	"strings"
)

// AnthropicCompat is --anthropic-compat (docs/reference/tools.md#the-anthropic-compatible-editor): whether, and as which
// version of Anthropic's text editor tool, the file tools are exposed.
// The bare flag (or "true") keeps its first meaning; a version picks that
// version's tool name and commands.
type AnthropicCompat string

const (
	// CompatOff serves Boris's own view, str_replace and create_file.
	CompatOff AnthropicCompat = ""
	// CompatOn is the bare flag: str_replace_editor with view, create,
	// str_replace and insert, as before versions could be chosen.
	CompatOn AnthropicCompat = "true"
	// Compat20250124 is text_editor_20250124: str_replace_editor with
	// undo_edit besides (Claude 3.7 and earlier).
	Compat20250124 AnthropicCompat = "20250124"
	// Compat20250728 is text_editor_20250728: str_replace_based_edit_tool
	// without undo_edit, view taking max_characters (Claude 4).
	Compat20250728 AnthropicCompat = "20250728"
)

// compatWant is what --anthropic-compat accepts, for error messages.
const compatWant = "want true, false, 20250124 or 20250728"

// UnmarshalText reads a flag or environment value: a boolean, or a
// version (also spelled text_editor_VERSION, as Anthropic's tool types are).
func (a *AnthropicCompat) UnmarshalText(text []byte) error {
	s := strings.TrimPrefix(string(text), "text_editor_")
	switch AnthropicCompat(s) {
	case Compat20250124, Compat20250728:
		*a = AnthropicCompat(s)
		return nil
	}
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("%s (an editor version Boris does not know, or not a boolean)", compatWant)
	}
	*a = CompatOff
	if on {
		*a = CompatOn
	}
	return nil
}

// String is the setting as --help and --check show it.
func (a AnthropicCompat) String() string {
	if a == CompatOff {
		return "false"
	}
	return string(a)
}

// IsBoolFlag lets the flag stand alone: --anthropic-compat means true,
// --anthropic-compat=VERSION picks a version.
func (a *AnthropicCompat) IsBoolFlag() bool { return true }

// Enabled reports whether the Anthropic schemas are served at all.
func (a AnthropicCompat) Enabled() bool { return a != CompatOff }
