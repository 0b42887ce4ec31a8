package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// throughputWarmup is how many untimed calls each session makes before the
// clock starts.
const throughputWarmup = 10

// measureThroughput opens cfg.workers sessions, warms each up, then lets
// all of them make checked view calls back to back for cfg.duration and
// returns the completed calls per second. The first failing call stops
// every session and is returned.
func measureThroughput(ctx context.Context, cfg config, d *dialer, fx benchkit.Fixture) (rate float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, phaseTimeout)
	defer cancel()
	sessions, err := openSessions(ctx, d, cfg.workers)
	defer func() {
		if cerr := closeSessions(sessions); err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return 0, err
	}
	for i, cs := range sessions {
		view := viewRead(fx).On(ctx, cs)
		for range throughputWarmup {
			if err := view(); err != nil {
				return 0, fmt.Errorf("session %d: warm-up: %w", i, err)
			}
		}
	}
	total, elapsed, err := callAll(ctx, sessions, fx, cfg.duration)
	if err != nil {
		return 0, err
	}
	return float64(total) / elapsed.Seconds(), nil
}

// callAll runs callUntil on every session at once and returns the calls
// completed and the time until the last session finished.
func callAll(ctx context.Context, sessions []*mcp.ClientSession, fx benchkit.Fixture, d time.Duration) (int, time.Duration, error) {
	counts := make([]int, len(sessions))
	errs := make([]error, len(sessions))
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() {
			counts[i], errs[i] = callUntil(stopCtx, cs, fx, deadline)
			if errs[i] != nil {
				stop() // one failure ends the phase
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return total, elapsed, nil
}

// callUntil makes checked view calls on cs until deadline and returns how
// many completed; a call in flight at the deadline is counted. It stops
// quietly when ctx is cancelled, the canceller reporting why.
func callUntil(ctx context.Context, cs *mcp.ClientSession, fx benchkit.Fixture, deadline time.Time) (int, error) {
	view := viewRead(fx).On(ctx, cs)
	n := 0
	for time.Now().Before(deadline) {
		if err := view(); err != nil {
			if ctx.Err() != nil {
				return n, nil
			}
			return n, fmt.Errorf("call %d: %w", n, err)
		}
		n++
	}
	return n, nil
}

// openSessions opens n sessions one after another. On error it returns the
// sessions opened so far, for the caller to close.
func openSessions(ctx context.Context, d *dialer, n int) ([]*mcp.ClientSession, error) {
	sessions := make([]*mcp.ClientSession, 0, n)
	for i := range n {
		cs, _, err := d.connect(ctx)
		if err != nil {
			return sessions, fmt.Errorf("open session %d of %d: %w", i+1, n, err)
		}
		sessions = append(sessions, cs)
	}
	return sessions, nil
}

// closeSessions closes every session (DELETE) concurrently and returns
// the first error.
func closeSessions(sessions []*mcp.ClientSession) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() { errs[i] = cs.Close() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close sessions: %w", err)
	}
	return nil
}
