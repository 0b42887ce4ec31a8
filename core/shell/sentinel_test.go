package shell

import (
	"bytes"
	"strings"
	"testing"
)

const testSentinel = "__BORIS_CWD_0123456789abcdef0123456789abcdef__"

func TestRecordFilter(t *testing.T) {
	rec := func(dir string) string { return "\n" + testSentinel + dir + "\n" }
	tests := []struct {
		name      string
		in        string
		want      string
		wantDir   string
		wantFound bool
	}{
		{"record only", rec("/tmp"), "", "/tmp", true},
		{"output with newline", "a\n" + rec("/x"), "a\n", "/x", true},
		{"output without newline", "abc" + rec("/x"), "abc", "/x", true},
		{"blank lines kept exactly", "a\n\n" + rec("/x"), "a\n\n", "/x", true},
		{"output after record (exit trap)", "a" + rec("/x") + "bye\n", "abye\n", "/x", true},
		{"no record", "hello\n", "hello\n", "", false},
		{"trailing newline only", "hello\n\n", "hello\n\n", "", false},
		{"partial record at end is output", "a\n" + testSentinel[:10], "a\n" + testSentinel[:10], "", false},
		{"unterminated record is output", "a\n" + testSentinel + "/x", "a\n" + testSentinel + "/x", "", false},
		{"sentinel mid-line is not a record", "x" + testSentinel + "y\n", "x" + testSentinel + "y\n", "", false},
		{"last record wins", rec("/a") + rec("/b"), "", "/b", true},
		{"dir with spaces", rec("/a b/c"), "", "/a b/c", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every chunk size, so records split at every offset are covered.
			for size := 1; size <= len(tt.in)+1; size++ {
				var out bytes.Buffer
				f := newRecordFilter(&out, testSentinel)
				for in := tt.in; len(in) > 0; {
					n := min(size, len(in))
					if got, err := f.Write([]byte(in[:n])); err != nil || got != n {
						t.Fatalf("Write = %d, %v; want %d, nil", got, err, n)
					}
					in = in[n:]
				}
				f.flush()
				if got := out.String(); got != tt.want {
					t.Fatalf("chunk %d: output = %q, want %q", size, got, tt.want)
				}
				if f.found != tt.wantFound || f.dir != tt.wantDir {
					t.Fatalf("chunk %d: record = %q, %v; want %q, %v", size, f.dir, f.found, tt.wantDir, tt.wantFound)
				}
			}
		})
	}
}

func TestRecordFilterOverlongRecord(t *testing.T) {
	var out bytes.Buffer
	f := newRecordFilter(&out, testSentinel)
	in := "\n" + testSentinel + strings.Repeat("d", maxRecordDir+10) + "\n"
	f.Write([]byte(in))
	f.flush()
	if f.found {
		t.Errorf("found record %q, want none (too long)", f.dir)
	}
	if got := out.String(); got != in {
		t.Errorf("output length %d, want %d (passed through)", len(got), len(in))
	}
}

func TestScrub(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a" + testSentinel + "b" + testSentinel, "ab"},
	}
	for _, tt := range tests {
		if got := scrub(tt.in, testSentinel); got != tt.want {
			t.Errorf("scrub(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewSentinelIsRandom(t *testing.T) {
	a, b := newSentinel(), newSentinel()
	if a == b || !strings.HasPrefix(a, "__BORIS_CWD_") || len(a) != len(testSentinel) {
		t.Errorf("got sentinels %q, %q; want two distinct __BORIS_CWD_<32 hex>__", a, b)
	}
}
