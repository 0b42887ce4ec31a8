package board

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoBlocker is RemoveBlocker's error when there is no such blocker.
var ErrNoBlocker = errors.New("no such blocker")

// Blockers is a task with the tasks it waits for and those waiting for it.
type Blockers struct {
	Task      Task   `json:"task" jsonschema:"the task asked about"`
	BlockedBy []Task `json:"blocked_by" jsonschema:"the tasks it waits for, open or closed; it is ready once none of them is open"`
	Blocks    []Task `json:"blocks" jsonschema:"the tasks waiting for it"`
}

// AddBlocker records that taskID cannot start before blockedByID is closed,
// and returns taskID's task. added is false when that was already so. A
// blocker that would close a cycle is refused with ErrCycle: none of the
// tasks on it could ever be ready.
func (s *engine) AddBlocker(ctx context.Context, taskID, blockedByID string) (t Task, added bool, err error) {
	task, by, err := parsePair(taskID, blockedByID)
	if err != nil {
		return Task{}, false, err
	}
	if task == by {
		return Task{}, false, fmt.Errorf("%w: a task cannot block itself (%s)", ErrCycle, FormatID(task))
	}
	err = s.write(ctx, func(tx queryer) error {
		if err := existsBoth(ctx, tx, task, by); err != nil {
			return err
		}
		if err := checkAcyclic(ctx, tx, task, by); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO blockers (task_id, blocked_by_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, task, by, now())
		if err != nil {
			return fmt.Errorf("add blocker: %w", err)
		}
		n, _ := res.RowsAffected()
		added = n == 1
		if added {
			_, err = tx.ExecContext(ctx, `UPDATE tasks SET updated_at = ? WHERE id = ?`, now(), task)
		}
		if err == nil {
			t, err = get(ctx, tx, task)
		}
		return err
	})
	return t, added, err
}

// checkAcyclic refuses a blocker by→task when by already waits, directly
// or through others, for task; the error shows the chain.
func checkAcyclic(ctx context.Context, q queryer, task, by int64) error {
	// Every task by waits for, however indirectly, and the edges among
	// them: the graph is acyclic, so this ends.
	rows, err := q.QueryContext(ctx, `WITH RECURSIVE waits(id) AS (
			SELECT CAST(? AS BIGINT) UNION SELECT b.blocked_by_id FROM blockers b JOIN waits w ON b.task_id = w.id)
		SELECT b.task_id, b.blocked_by_id FROM blockers b WHERE b.task_id IN (SELECT id FROM waits)`, by)
	if err != nil {
		return fmt.Errorf("check for a cycle: %w", err)
	}
	defer rows.Close()
	edges := map[int64][]int64{}
	for rows.Next() {
		var from, to int64
		if err := rows.Scan(&from, &to); err != nil {
			return fmt.Errorf("check for a cycle: %w", err)
		}
		edges[from] = append(edges[from], to)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check for a cycle: %w", err)
	}
	chain := path(edges, by, task)
	if chain == nil {
		return nil
	}
	ids := make([]string, len(chain))
	for i, k := range chain {
		ids[i] = FormatID(k)
	}
	return fmt.Errorf("%w: %s cannot be blocked by %s: %s already waits for %s (%s), and a cycle would leave none of them ready",
		ErrCycle, FormatID(task), FormatID(by), FormatID(by), FormatID(task), strings.Join(ids, " waits for "))
}

// path finds a chain of edges from one key to another (breadth first, so
// the shortest), or nil.
func path(edges map[int64][]int64, from, to int64) []int64 {
	prev := map[int64]int64{from: from}
	queue := []int64{from}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if k == to {
			var chain []int64
			for ; k != from; k = prev[k] {
				chain = append([]int64{k}, chain...)
			}
			return append([]int64{from}, chain...)
		}
		for _, n := range edges[k] {
			if _, seen := prev[n]; !seen {
				prev[n] = k
				queue = append(queue, n)
			}
		}
	}
	return nil
}

// RemoveBlocker undoes AddBlocker and returns taskID's task. There being
// no such blocker is ErrNoBlocker.
func (s *engine) RemoveBlocker(ctx context.Context, taskID, blockedByID string) (Task, error) {
	task, by, err := parsePair(taskID, blockedByID)
	if err != nil {
		return Task{}, err
	}
	var t Task
	err = s.write(ctx, func(tx queryer) error {
		if err := existsBoth(ctx, tx, task, by); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM blockers WHERE task_id = ? AND blocked_by_id = ?`, task, by)
		if err != nil {
			return fmt.Errorf("remove blocker: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: %s is not blocked by %s (get_blockers lists what blocks it)", ErrNoBlocker, FormatID(task), FormatID(by))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET updated_at = ? WHERE id = ?`, now(), task); err != nil {
			return fmt.Errorf("remove blocker: %w", err)
		}
		t, err = get(ctx, tx, task)
		return err
	})
	return t, err
}

// GetBlockers returns the task taskID names with what it waits for and
// what waits for it, each in key order.
func (s *engine) GetBlockers(ctx context.Context, taskID string) (Blockers, error) {
	key, err := ParseID(taskID)
	if err != nil {
		return Blockers{}, err
	}
	var b Blockers
	err = s.read(ctx, func(tx queryer) error {
		if b.Task, err = get(ctx, tx, key); err != nil {
			return err
		}
		if b.BlockedBy, err = related(ctx, tx, `SELECT blocked_by_id FROM blockers WHERE task_id = ?`, key); err != nil {
			return err
		}
		b.Blocks, err = related(ctx, tx, `SELECT task_id FROM blockers WHERE blocked_by_id = ?`, key)
		return err
	})
	return b, err
}

// related reads the tasks whose keys sub, a query of one key column,
// selects.
func related(ctx context.Context, q queryer, sub string, args ...any) ([]Task, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.id IN (`+sub+`) ORDER BY t.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("read blockers: %w", err)
	}
	defer rows.Close()
	tasks := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("read blockers: %w", err)
		}
		tasks = append(tasks, t)
	}
	return tasks, rows.Err()
}

// parsePair parses a blocker's two ids.
func parsePair(taskID, blockedByID string) (int64, int64, error) {
	task, err := ParseID(taskID)
	if err != nil {
		return 0, 0, fmt.Errorf("task_id: %w", err)
	}
	by, err := ParseID(blockedByID)
	if err != nil {
		return 0, 0, fmt.Errorf("blocked_by_id: %w", err)
	}
	return task, by, nil
}

// existsBoth checks that both tasks of a blocker exist.
func existsBoth(ctx context.Context, q queryer, task, by int64) error {
	if err := exists(ctx, q, task); err != nil {
		return err
	}
	return exists(ctx, q, by)
}
