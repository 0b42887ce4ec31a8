package main

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// Waits for the process tree to settle: a gateway may end a deleted
// session's core after answering the DELETE, and start a core just after
// answering initialize's request.
const (
	settleTimeout = 10 * time.Second
	leakWait      = 10 * time.Second      // after the last gateway stopped
	pollEvery     = 20 * time.Millisecond // between /proc scans
)

// memory is the memory reading of one gateway.
type memory struct {
	sessions int                // sessions open during the reading
	idle     benchkit.TreeUsage // the tree before the phase opened any session
	open     benchkit.TreeUsage // the tree with every session open
}

// perSession returns the tree's RSS divided by the open sessions: the
// issue's "resident memory per open session".
func (m memory) perSession() float64 { return float64(m.open.RSS) / float64(m.sessions) }

// pssPerSession is perSession with PSS, which does not count the cores'
// shared program text once per core.
func (m memory) pssPerSession() float64 { return float64(m.open.PSS) / float64(m.sessions) }

// measureMemory reads the gateway's process tree with no session open,
// then opens cfg.open sessions (one tools/list each, which must list view)
// and reads it again once every core is running; then closes them all.
func measureMemory(ctx context.Context, cfg config, d *dialer, pid int, boris string) (m memory, err error) {
	m.sessions = cfg.open
	if m.idle, err = settle(ctx, pid, boris, 0); err != nil {
		return m, err
	}
	sessions, err := openSessions(ctx, d, cfg.open)
	defer func() {
		if cerr := closeSessions(sessions); err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return m, err
	}
	for i, cs := range sessions {
		if err := listsView(ctx, cs); err != nil {
			return m, fmt.Errorf("session %d: %w", i, err)
		}
	}
	m.open, err = settle(ctx, pid, boris, cfg.open)
	return m, err
}

// listsView checks that tools/list on cs offers the view tool.
func listsView(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range res.Tools {
		if t.Name == "view" {
			return nil
		}
	}
	return fmt.Errorf("tools/list: no view tool among %d tools", len(res.Tools))
}

// settle waits (up to settleTimeout) until the tree under pid holds cores
// boris processes, then returns its usage. If it never does, the last
// reading is returned: the report shows the count.
func settle(ctx context.Context, pid int, boris string, cores int) (benchkit.TreeUsage, error) {
	deadline := time.Now().Add(settleTimeout)
	for {
		u, err := benchkit.ReadTree(pid, boris)
		if err != nil || u.Cores == cores || time.Now().After(deadline) {
			return u, err
		}
		select {
		case <-ctx.Done():
			return u, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}
