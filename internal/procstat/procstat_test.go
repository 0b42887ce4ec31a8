package procstat

import (
	"errors"
	"os"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       Stat
	}{
		{"plain", "42 (bash) S 1 42 42 34816 42 4194560 100 0 0 0 250 50 0 0 20 0 1 0",
			Stat{PID: 42, Comm: "bash", State: 'S', PPID: 1, PGRP: 42, Session: 42, CPU: 3 * time.Second}},
		{"a name with spaces and parentheses", "7 (a) b) (c d) R 3 5 6 0 -1 0 0 0 0 0 1 2 0 0",
			Stat{PID: 7, Comm: "a) b) (c d", State: 'R', PPID: 3, PGRP: 5, Session: 6, CPU: 30 * time.Millisecond}},
		{"niced", "9 (git) S 1 9 9 0 -1 0 0 0 0 0 3 4 0 0 30 10 1 0",
			Stat{PID: 9, Comm: "git", State: 'S', PPID: 1, PGRP: 9, Session: 9, CPU: 70 * time.Millisecond, Nice: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.line))
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.line, got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "42", "42 (x", "x (bash) S 1 2 3 0 0 0 0 0 0 0 0 0", "42 (bash) S 1 2", "42 (bash) SS 1 2 3 0 0 0 0 0 0 0 0 0", "42 (bash) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 20 x"} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q): got %v, want ErrMalformed", bad, err)
		}
	}
}

func TestReadSelf(t *testing.T) {
	st, err := Read(os.Getpid())
	if err != nil {
		t.Skipf("needs /proc (Linux): %v", err)
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() {
		t.Errorf("Read(self) = %+v; want pid %d, ppid %d", st, os.Getpid(), os.Getppid())
	}
}

// FuzzParse: any bytes give a Stat or ErrMalformed, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte("42 (bash) S 1 42 42 34816 42 4194560 100 0 0 0 250 50 0 0"))
	f.Add([]byte("7 ())) R 3 5 6 0 -1 0 0 0 0 0 1 2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Parse(data); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("Parse: %v, want ErrMalformed", err)
		}
	})
}
