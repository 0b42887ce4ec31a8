package dashboard

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mjkoo/boris/core/board"
)

// TestBoardReadOffRequest: a board whose read hangs (a FIFO swapped in
// after its check, a stuck file system) is read once, apart from the
// requests: 51 requests at once are each answered with the board shown
// unavailable, without starting another read; once the read ends, its
// board shows.
func TestBoardReadOffRequest(t *testing.T) {
	o := NewObserver(nil)
	var reads atomic.Int32
	release := make(chan struct{})
	o.read = func(context.Context, string, board.PGOptions) dashBoard {
		reads.Add(1)
		<-release
		return dashBoard{Counts: map[string]int{"pending": 1}, Tasks: []dashTask{{ID: "W-1"}}}
	}
	ref := boardRef{subject: "alice", path: "/nonexistent/alice/.boris/boris.db"}
	var wg sync.WaitGroup
	for range 51 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b := o.readBoard(context.Background(), ref, false); b.Error == "" || len(b.Tasks) != 0 {
				t.Errorf("a board whose read hangs: got %+v, want it shown unavailable", b)
			}
		}()
	}
	answered := make(chan struct{})
	go func() {
		wg.Wait()
		close(answered)
	}()
	select {
	case <-answered:
	case <-time.After(10 * boardWait):
		t.Fatal("requests still wait for a board whose read hangs, want them answered")
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("reads started: got %d, want 1 (one at a time per board)", n)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		b := o.readBoard(context.Background(), ref, false)
		if b.Error == "" && len(b.Tasks) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the read ended: got %+v, want its board", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
