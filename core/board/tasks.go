package board

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NewTask is what Create needs. Priority 0 means DefaultPriority; ParentID
// "" means none.
type NewTask struct {
	Description string
	ParentID    string
	Priority    int
	Context     string
}

// Change is what Update changes: nil fields are left as they are.
type Change struct {
	Description *string
	Status      *Status
	Priority    *int
	Context     *string
	Result      *string
}

// Filter selects the tasks List returns. Zero values select everything;
// Limit 0 means DefaultLimit.
type Filter struct {
	Status   Status // only tasks of this status
	ParentID string // only the subtasks of this task
	Ready    bool   // only open tasks none of whose blockers is open
	Limit    int
}

// taskColumns are the columns scanTask reads, t being the tasks table.
// blocked_by lists every blocker; open_blockers counts the open ones.
const taskColumns = `t.id, t.description, t.status, t.priority, t.parent_id, t.context, t.result, t.created_at, t.updated_at,
	(SELECT string_agg(CAST(b.blocked_by_id AS TEXT), ',') FROM blockers b WHERE b.task_id = t.id),
	(SELECT count(*) FROM blockers b JOIN tasks o ON o.id = b.blocked_by_id
		WHERE b.task_id = t.id AND o.status IN ('pending', 'in_progress'))`

// scanTask reads one row of taskColumns.
func scanTask(row interface{ Scan(...any) error }) (Task, error) {
	var (
		t          Task
		key        int64
		parent     sql.NullInt64
		blockedBy  sql.NullString
		openBlocks int
	)
	err := row.Scan(&key, &t.Description, &t.Status, &t.Priority, &parent, &t.Context, &t.Result,
		&t.CreatedAt, &t.UpdatedAt, &blockedBy, &openBlocks)
	if err != nil {
		return t, err
	}
	t.ID = FormatID(key)
	if parent.Valid {
		t.ParentID = FormatID(parent.Int64)
	}
	t.BlockedBy = splitKeys(blockedBy.String)
	t.Ready = t.Status.Open() && openBlocks == 0
	return t, nil
}

// splitKeys turns string_agg's "3,1" into ids in key order.
func splitKeys(s string) []string {
	var keys []int64
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil {
			keys = append(keys, n)
		}
	}
	slices.Sort(keys)
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = FormatID(k)
	}
	return ids
}

// get reads the task stored under key.
func get(ctx context.Context, q queryer, key int64) (Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks t WHERE t.id = ?`, key))
	if isNoRows(err) {
		return t, notFound(key)
	}
	if err != nil {
		return t, fmt.Errorf("read %s: %w", FormatID(key), err)
	}
	return t, nil
}

// exists checks that the task stored under key exists.
func exists(ctx context.Context, q queryer, key int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM tasks WHERE id = ?`, key).Scan(&one)
	if isNoRows(err) {
		return notFound(key)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", FormatID(key), err)
	}
	return nil
}

// Get returns the task id names.
func (s *engine) Get(ctx context.Context, id string) (Task, error) {
	key, err := ParseID(id)
	if err != nil {
		return Task{}, err
	}
	var t Task
	err = s.read(ctx, func(tx queryer) error {
		t, err = get(ctx, tx, key)
		return err
	})
	return t, err
}

// Create adds a pending task and returns it.
func (s *engine) Create(ctx context.Context, n NewTask) (Task, error) {
	if n.Priority == 0 {
		n.Priority = DefaultPriority
	}
	if err := checkText(n.Description, n.Context, n.Priority); err != nil {
		return Task{}, err
	}
	var parent sql.NullInt64
	if n.ParentID != "" {
		key, err := ParseID(n.ParentID)
		if err != nil {
			return Task{}, fmt.Errorf("parent: %w", err)
		}
		parent = sql.NullInt64{Int64: key, Valid: true}
	}
	var t Task
	err := s.write(ctx, func(tx queryer) error {
		if err := checkRoom(ctx, tx); err != nil {
			return err
		}
		if parent.Valid {
			if err := exists(ctx, tx, parent.Int64); err != nil {
				return fmt.Errorf("parent: %w", err)
			}
		}
		at := now()
		var key int64
		err := tx.QueryRowContext(ctx, `INSERT INTO tasks (description, priority, parent_id, context, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, n.Description, n.Priority, parent, n.Context, at, at).Scan(&key)
		if err != nil {
			return fmt.Errorf("create task: %w", err)
		}
		t, err = get(ctx, tx, key)
		return err
	})
	return t, err
}

// checkRoom refuses a task beyond MaxTasks: agents write the board, and
// one in a loop must not fill the disk every process shares.
func checkRoom(ctx context.Context, q queryer) error {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM tasks`).Scan(&n); err != nil {
		return fmt.Errorf("count tasks: %w", err)
	}
	if n >= MaxTasks {
		return fmt.Errorf("%w: the board holds %d tasks, its limit: delete finished ones (delete_task) before adding more", ErrInvalid, n)
	}
	return nil
}

// checkText checks a task's description, context and priority.
func checkText(description, context string, priority int) error {
	switch {
	case strings.TrimSpace(description) == "":
		return fmt.Errorf("%w: description is empty: say what is to be done", ErrInvalid)
	case len(description) > MaxDescription:
		return fmt.Errorf("%w: description has %d bytes, more than %d: put the details in context", ErrInvalid, len(description), MaxDescription)
	case len(context) > MaxText:
		return fmt.Errorf("%w: context has %d bytes, more than %d: refer to a file instead", ErrInvalid, len(context), MaxText)
	case priority < MinPriority || priority > MaxPriority:
		return fmt.Errorf("%w: priority %d: want %d (most urgent) to %d (least)", ErrInvalid, priority, MinPriority, MaxPriority)
	case !utf8.ValidString(description) || !utf8.ValidString(context):
		return fmt.Errorf("%w: text is not valid UTF-8", ErrInvalid)
	case strings.ContainsRune(description, 0) || strings.ContainsRune(context, 0):
		return fmt.Errorf("%w: text holds a NUL character, which a PostgreSQL board cannot store: remove it", ErrInvalid)
	}
	return nil
}

// List returns the tasks f selects: open ones first, then by priority
// (most urgent first), then oldest first. more is true when Limit cut
// the list.
func (s *engine) List(ctx context.Context, f Filter) (tasks []Task, more bool, err error) {
	where, args, err := f.where()
	if err != nil {
		return nil, false, err
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 1 || limit > MaxLimit {
		return nil, false, fmt.Errorf("%w: limit %d: want 1 to %d", ErrInvalid, limit, MaxLimit)
	}
	q := `SELECT ` + taskColumns + ` FROM tasks t` + where +
		` ORDER BY t.status NOT IN ('pending', 'in_progress'), t.priority, t.id LIMIT ?`
	err = s.read(ctx, func(tx queryer) error {
		if f.ParentID != "" {
			if err := exists(ctx, tx, args[0].(int64)); err != nil {
				return fmt.Errorf("parent: %w", err)
			}
		}
		rows, err := tx.QueryContext(ctx, q, append(args, limit+1)...)
		if err != nil {
			return fmt.Errorf("list tasks: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			t, err := scanTask(rows)
			if err != nil {
				return fmt.Errorf("list tasks: %w", err)
			}
			tasks = append(tasks, t)
		}
		return rows.Err()
	})
	if len(tasks) > limit {
		tasks, more = tasks[:limit], true
	}
	return tasks, more, err
}

// where is f as a WHERE clause of fixed text and its parameters. The
// parent's key, when there is one, is the first parameter.
func (f Filter) where() (string, []any, error) {
	var conds []string
	var args []any
	if f.ParentID != "" {
		key, err := ParseID(f.ParentID)
		if err != nil {
			return "", nil, fmt.Errorf("parent: %w", err)
		}
		conds, args = append(conds, "t.parent_id = ?"), append(args, key)
	}
	if f.Status != "" {
		if !f.Status.Valid() {
			return "", nil, fmt.Errorf("%w: status %q: want one of %s", ErrInvalid, f.Status, strings.Join(Statuses, ", "))
		}
		conds, args = append(conds, "t.status = ?"), append(args, string(f.Status))
	}
	if f.Ready {
		conds = append(conds, `t.status IN ('pending', 'in_progress') AND NOT EXISTS (
			SELECT 1 FROM blockers b JOIN tasks o ON o.id = b.blocked_by_id
			WHERE b.task_id = t.id AND o.status IN ('pending', 'in_progress'))`)
	}
	if len(conds) == 0 {
		return "", nil, nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args, nil
}

// Update applies c to the task id names and returns it as it now is.
// Fields c leaves nil keep whatever another process may have written.
func (s *engine) Update(ctx context.Context, id string, c Change) (Task, error) {
	key, err := ParseID(id)
	if err != nil {
		return Task{}, err
	}
	sets, args, err := c.sets()
	if err != nil {
		return Task{}, err
	}
	var t Task
	err = s.write(ctx, func(tx queryer) error {
		if err := exists(ctx, tx, key); err != nil {
			return err
		}
		q := `UPDATE tasks SET ` + strings.Join(append(sets, "updated_at = ?"), ", ") + ` WHERE id = ?`
		if _, err := tx.ExecContext(ctx, q, append(args, now(), key)...); err != nil {
			return fmt.Errorf("update %s: %w", FormatID(key), err)
		}
		t, err = get(ctx, tx, key)
		return err
	})
	return t, err
}

// sets is c as SET assignments of fixed text and their parameters.
func (c Change) sets() ([]string, []any, error) {
	var sets []string
	var args []any
	add := func(col string, v any) { sets, args = append(sets, col+" = ?"), append(args, v) }
	if c.Description != nil {
		if err := checkText(*c.Description, "", DefaultPriority); err != nil {
			return nil, nil, err
		}
		add("description", *c.Description)
	}
	if c.Status != nil {
		if !c.Status.Valid() {
			return nil, nil, fmt.Errorf("%w: status %q: want one of %s", ErrInvalid, *c.Status, strings.Join(Statuses, ", "))
		}
		add("status", string(*c.Status))
	}
	if c.Priority != nil {
		if err := checkText("-", "", *c.Priority); err != nil {
			return nil, nil, err
		}
		add("priority", *c.Priority)
	}
	for _, f := range []struct {
		col string
		v   *string
	}{{"context", c.Context}, {"result", c.Result}} {
		if f.v == nil {
			continue
		}
		if len(*f.v) > MaxText || !utf8.ValidString(*f.v) || strings.ContainsRune(*f.v, 0) {
			return nil, nil, fmt.Errorf("%w: %s: want valid UTF-8 without NUL of at most %d bytes: refer to a file instead", ErrInvalid, f.col, MaxText)
		}
		add(f.col, *f.v)
	}
	if len(sets) == 0 {
		return nil, nil, fmt.Errorf("%w: nothing to change: give description, priority, status, context or result", ErrInvalid)
	}
	return sets, args, nil
}

// Delete removes the task id names, with the blockers it waits for, and
// returns it as it was. A task that blocks others or has subtasks is
// refused with ErrInUse, naming them.
func (s *engine) Delete(ctx context.Context, id string) (Task, error) {
	key, err := ParseID(id)
	if err != nil {
		return Task{}, err
	}
	var t Task
	err = s.write(ctx, func(tx queryer) error {
		if t, err = get(ctx, tx, key); err != nil {
			return err
		}
		if err := checkUnused(ctx, tx, key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE id = ?`, key); err != nil {
			return fmt.Errorf("delete %s: %w", FormatID(key), err)
		}
		return nil
	})
	return t, err
}

// checkUnused refuses, with ErrInUse, a task that blocks others or has
// subtasks, and says what to do instead.
func checkUnused(ctx context.Context, q queryer, key int64) error {
	blocks, err := keys(ctx, q, `SELECT task_id FROM blockers WHERE blocked_by_id = ? ORDER BY task_id`, key)
	if err != nil {
		return err
	}
	children, err := keys(ctx, q, `SELECT id FROM tasks WHERE parent_id = ? ORDER BY id`, key)
	if err != nil {
		return err
	}
	var why []string
	if len(blocks) > 0 {
		why = append(why, fmt.Sprintf("it blocks %s (remove_blocker first)", strings.Join(blocks, ", ")))
	}
	if len(children) > 0 {
		why = append(why, fmt.Sprintf("it has subtasks %s (delete them first)", strings.Join(children, ", ")))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s cannot be deleted: %s; or keep it and set its status to cancelled",
		ErrInUse, FormatID(key), strings.Join(why, " and "))
}

// keys runs a query of one key column and returns the keys as ids.
func keys(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read tasks: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("read tasks: %w", err)
		}
		ids = append(ids, FormatID(k))
	}
	return ids, rows.Err()
}
