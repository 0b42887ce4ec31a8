// Command board measures the task board's operations per second on
// SQLite and on PostgreSQL, with one host and with two hosts writing at
// once (make bench-board). A host is one open store (a core's: SQLite's
// one connection, PostgreSQL's pool of its own) with -workers goroutines
// each running the mix a team's agents make: create a task, read it,
// update it, make it wait for the worker's previous one, list the ready tasks. PostgreSQL
// is Debian's, started for the run in a temporary directory on a Unix
// socket (installed with apt-get when missing), with fsync off as the
// tests run it, so the figures compare the stores' work, not the disks';
// SQLite runs with its own settings (synchronous=FULL) on the temporary
// directory's disk, and a second row with the same file on /dev/shm.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/internal/pgtest"
)

func main() {
	dur := flag.Duration("duration", 5*time.Second, "how long each row runs")
	workers := flag.Int("workers", 4, "goroutines per host")
	flag.Parse()
	if err := run(*dur, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "bench-board:", err)
		os.Exit(1)
	}
}

// run measures every row and prints the table.
func run(dur time.Duration, workers int) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "boris-bench-board-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	srv, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Printf("board operations per second (%d workers per host, %v per row; an operation is one store call)\n", workers, dur)
	fmt.Printf("%-34s %6s %12s %10s\n", "store", "hosts", "ops/s", "errors")
	n := 0
	for _, hosts := range []int{1, 2} {
		rows := []struct {
			name string
			open func() (board.Board, error)
		}{
			{"sqlite (disk, synchronous=full)", sqliteOpener(ctx, filepath.Join(tmp, fmt.Sprintf("disk-%d.db", hosts)))},
			{"sqlite (/dev/shm)", sqliteOpener(ctx, shmPath(hosts))},
			{"postgresql (unix socket)", nil},
		}
		n++
		url, pw, err := srv.Role(ctx, fmt.Sprintf("bench_%d", n), tmp, board.ProvisionRole)
		if err != nil {
			return err
		}
		rows[2].open = func() (board.Board, error) {
			return board.OpenPostgres(ctx, url, board.PGOptions{PasswordFile: pw})
		}
		for _, r := range rows {
			ops, errs, err := measure(ctx, r.open, hosts, workers, dur)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			fmt.Printf("%-34s %6d %12.0f %10d\n", r.name, hosts, ops, errs)
		}
	}
	os.Remove(shmPath(1))
	os.Remove(shmPath(2))
	return nil
}

// shmPath is a SQLite file in memory-backed /dev/shm for the hosts row.
func shmPath(hosts int) string {
	return fmt.Sprintf("/dev/shm/boris-bench-board-%d-%d.db", os.Getpid(), hosts)
}

// sqliteOpener opens the SQLite board at path.
func sqliteOpener(ctx context.Context, path string) func() (board.Board, error) {
	return func() (board.Board, error) { return board.Open(ctx, path) }
}

// measure runs the mix on hosts stores at once for dur and returns the
// operations per second and how many failed.
func measure(ctx context.Context, open func() (board.Board, error), hosts, workers int, dur time.Duration) (float64, int64, error) {
	stores := make([]board.Board, hosts)
	for i := range stores {
		s, err := open()
		if err != nil {
			return 0, 0, err
		}
		defer s.Close()
		stores[i] = s
	}
	seed, err := stores[0].Create(ctx, board.NewTask{Description: "milestone"})
	if err != nil {
		return 0, 0, err
	}
	var ops, errs atomic.Int64
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	start := time.Now()
	for _, s := range stores {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				prev := seed.ID
				for i := 0; time.Now().Before(deadline); i++ {
					var n, failed int64
					prev, n, failed = mix(ctx, s, prev, fmt.Sprintf("w%d-%d", w, i))
					ops.Add(n)
					errs.Add(failed)
				}
			}()
		}
	}
	wg.Wait()
	return float64(ops.Load()) / time.Since(start).Seconds(), errs.Load(), nil
}

// mix is one round of a worker: five operations, the new task waiting
// for the worker's previous one. It returns the new task's id, how many
// operations ran and how many failed.
func mix(ctx context.Context, s board.Board, prev, name string) (string, int64, int64) {
	var failed int64
	fail := func(op string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "%s: %v\n", op, err)
		}
	}
	t, err := s.Create(ctx, board.NewTask{Description: name})
	if err != nil {
		fail("create", err)
		return prev, 1, 1
	}
	_, err = s.Get(ctx, t.ID)
	fail("get", err)
	st := board.InProgress
	_, err = s.Update(ctx, t.ID, board.Change{Status: &st})
	fail("update", err)
	_, _, err = s.AddBlocker(ctx, t.ID, prev)
	fail("add_blocker", err)
	_, _, err = s.List(ctx, board.Filter{Ready: true, Limit: 20})
	fail("list", err)
	return t.ID, 5, failed
}
