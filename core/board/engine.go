package board

import (
	"context"
	"database/sql"
)

// Board is a task board wherever it is kept: a SQLite file (Store, opened
// by Open) or a schema of a PostgreSQL database (PGStore, opened by
// OpenPostgres). Every tool, the CLI and the dashboard use a board through
// it, and both keep the same promises: one transaction per call, blockers
// without cycles, no write lost to another process or host.
type Board interface {
	Get(ctx context.Context, id string) (Task, error)
	Create(ctx context.Context, n NewTask) (Task, error)
	List(ctx context.Context, f Filter) (tasks []Task, more bool, err error)
	Update(ctx context.Context, id string, c Change) (Task, error)
	Delete(ctx context.Context, id string) (Task, error)
	AddBlocker(ctx context.Context, taskID, blockedByID string) (t Task, added bool, err error)
	RemoveBlocker(ctx context.Context, taskID, blockedByID string) (Task, error)
	GetBlockers(ctx context.Context, taskID string) (Blockers, error)
	Counts(ctx context.Context) (map[Status]int, error)
	// Where says where the board is for messages and logs: a file's path,
	// or a database URL without its password.
	Where() string
	Close() error
}

// engine is the board's logic over database/sql: one set of queries,
// written in the SQL both databases speak, run in the transactions its
// store gives it.
type engine struct {
	db *sql.DB
	tx transactor
}

// transactor runs a function in one transaction of its database: write
// in one that may write and is committed if f succeeds, read in one
// read-only snapshot. A transactor retries f itself when its database
// asks for that (PostgreSQL's serialization failures), so f must do
// nothing but its queries.
type transactor interface {
	write(ctx context.Context, f func(queryer) error) error
	read(ctx context.Context, f func(queryer) error) error
}

// write runs f in one write transaction (see transactor).
func (s *engine) write(ctx context.Context, f func(queryer) error) error { return s.tx.write(ctx, f) }

// read runs f in one read-only transaction (see transactor).
func (s *engine) read(ctx context.Context, f func(queryer) error) error { return s.tx.read(ctx, f) }

// The stores are boards.
var (
	_ Board = (*Store)(nil)
	_ Board = (*PGStore)(nil)
)

// OpenBoard opens the board target names (a --tasks-db value): a
// PostgreSQL URL (OpenPostgres, with o) or a SQLite file's absolute, real
// path (Open). A URL of another scheme is ErrScheme, never a path.
func OpenBoard(ctx context.Context, target string, o PGOptions) (Board, error) {
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	if IsPostgres(target) {
		return board(OpenPostgres(ctx, target, o))
	}
	return board(Open(ctx, target))
}

// OpenBoardReadOnly opens the board target names for reading only, as
// the dashboard does (see OpenReadOnly and PGOptions.ReadOnly).
func OpenBoardReadOnly(ctx context.Context, target string, o PGOptions) (Board, error) {
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	if IsPostgres(target) {
		o.ReadOnly = true
		return board(OpenPostgres(ctx, target, o))
	}
	return board(OpenReadOnly(ctx, target))
}

// board is an open's result as a Board: nil, not a nil *Store or
// *PGStore (which a Board holding it would not be), when it failed.
func board[S Board](s S, err error) (Board, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}
