package benchkit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunLength: runs are block calls long, but a measurement always
// takes ten turns or more.
func TestRunLength(t *testing.T) {
	for _, tt := range []struct{ block, calls, want int }{
		{25, 520, 25}, {25, 220, 22}, {25, 22, 2}, {25, 5, 1}, {1, 520, 1}, {1000, 520, 52},
	} {
		if got := RunLength(tt.block, tt.calls); got != tt.want {
			t.Errorf("RunLength(%d, %d) = %d, want %d", tt.block, tt.calls, got, tt.want)
		}
	}
}

// TestTurns checks that each round visits every server once, starting
// with the next one each round.
func TestTurns(t *testing.T) {
	for i, want := range [][]int{{0, 1}, {1, 0}, {0, 1}} {
		if got := Turns(2, i); !cmp.Equal(got, want) {
			t.Errorf("Turns(2, %d): got %v, want %v", i, got, want)
		}
	}
}

// TestTakeTurns: every server makes every call once, in order, in runs,
// the first to go alternating; an error stops it at once.
func TestTakeTurns(t *testing.T) {
	var got []string
	err := TakeTurns(2, 5, 2, func(k, i int) error {
		got = append(got, fmt.Sprintf("%d:%d", k, i))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "0:0 0:1 1:0 1:1 1:2 1:3 0:2 0:3 0:4 1:4"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("calls: got %s, want %s", s, want)
	}
	n := 0
	stop := fmt.Errorf("stop")
	if err := TakeTurns(2, 5, 2, func(k, i int) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("after an error: got %v after %d calls, want it returned after 1", err, n)
	}
}
