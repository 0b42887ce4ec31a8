package boris

import "testing"

func TestInsertAt(t *testing.T) {
	tests := []struct {
		name, data string
		after      int
		text, want string
	}{
		{"beginning", "a\nb\n", 0, "x", "x\na\nb\n"},
		{"middle", "a\nb\n", 1, "x\n", "a\nx\nb\n"},
		{"end", "a\nb\n", 2, "x", "a\nb\nx\n"},
		{"several lines", "a\nb\n", 1, "x\ny", "a\nx\ny\nb\n"},
		{"crlf file keeps crlf", "a\r\nb\r\n", 1, "x\ny", "a\r\nx\r\ny\r\nb\r\n"},
		{"crlf text into crlf file", "a\r\nb\r\n", 0, "x\r\n", "x\r\na\r\nb\r\n"},
		{"no final newline kept", "a\nb", 2, "x", "a\nb\nx"},
		{"no final newline middle", "a\nb", 1, "x", "a\nx\nb"},
		{"empty file", "", 0, "x", "x\n"},
		{"bom kept", "\ufeffa\n", 1, "x", "\ufeffa\nx\n"},
		{"empty text", "a\n", 1, "", "a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(insertAt([]byte(tt.data), tt.after, []byte(tt.text))); got != tt.want {
				t.Errorf("insertAt(%q, %d, %q) = %q, want %q", tt.data, tt.after, tt.text, got, tt.want)
			}
		})
	}
}

func TestCountLines(t *testing.T) {
	for data, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "\n\n": 2} {
		if got := countLines([]byte(data)); got != want {
			t.Errorf("countLines(%q) = %d, want %d", data, got, want)
		}
	}
}
