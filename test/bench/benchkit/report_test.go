package benchkit

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWriteTargets checks the verdict lines: a unit after each number,
// none for a ratio.
func TestWriteTargets(t *testing.T) {
	var buf bytes.Buffer
	WriteTargets(&buf, []Target{
		{Name: "init p50", Value: 4.5, Limit: 20, Unit: "ms", Met: true},
		{Name: "call ratio", Value: 0.5, Limit: 0.25, Unit: "ratio", Met: false},
		{Name: "RSS per session", Value: 13.0274, Limit: 15, Unit: "MB", Met: true},
	})
	want := "target init p50 <= 20.000 ms: 4.500 ms  MET\n" +
		"target call ratio <= 0.250: 0.500  NOT MET\n" +
		"target RSS per session <= 15.000 MB: 13.027 MB  MET\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("WriteTargets (-want +got):\n%s", diff)
	}
}

// TestRatio checks a plain quotient and the zero for nothing measured.
func TestRatio(t *testing.T) {
	for _, tc := range []struct{ a, b, want float64 }{{1, 4, 0.25}, {3, 0, 0}, {0, 2, 0}} {
		if got := Ratio(tc.a, tc.b); got != tc.want {
			t.Errorf("Ratio(%v, %v): got %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestFormatMs checks three decimals in milliseconds.
func TestFormatMs(t *testing.T) {
	if got, want := FormatMs(1234567*time.Nanosecond), "1.235 ms"; got != want {
		t.Errorf("FormatMs: got %q, want %q", got, want)
	}
}

// TestWriteJSON checks the two-space indent.
func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "{\n  \"n\": 1\n}\n"; got != want {
		t.Errorf("WriteJSON: got %q, want %q", got, want)
	}
}
