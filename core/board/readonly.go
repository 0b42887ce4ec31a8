package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
)

// ErrNoBoard is wrapped by OpenReadOnly when no board exists at the path
// yet (nobody has written a task there).
var ErrNoBoard = errors.New("no task board yet")

// OpenReadOnly opens an existing board for reading only, as the gateway's
// dashboard does: it creates nothing (no file, no directory, no schema),
// takes no write lock, and refuses a database whose schema this build
// does not know. A board no process has created yet is ErrNoBoard. As with
// Open, a link on path is ErrLink and a board that is not a regular file
// ErrNotRegular, found without opening anything that could block.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	}
	pl, err := locate(abs, false)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", readOnlyDSN(pl.name))
	if err != nil {
		pl.release()
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{engine: engine{db: db, tx: sqliteTx{db}}, path: path, place: pl}
	v, err := userVersion(ctx, db)
	switch {
	case err != nil:
		s.Close()
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	case v == 0:
		s.Close()
		return nil, fmt.Errorf("open task database %s: %w", path, ErrNoBoard)
	case v > SchemaVersion:
		s.Close()
		return nil, fmt.Errorf("open task database %s: its schema is version %d, newer than this boris knows (%d)", path, v, SchemaVersion)
	}
	return s, nil
}

// readOnlyDSN opens path with mode=ro: SQLite refuses every write on the
// connection, whatever runs on it. The busy timeout lets a read wait out
// a writer's checkpoint.
func readOnlyDSN(path string) string {
	q := url.Values{}
	q.Set("vfs", vfsName)
	q.Set("mode", "ro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Set("_txlock", "deferred")
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Counts returns how many tasks the board holds in each status.
func (s *engine) Counts(ctx context.Context) (map[Status]int, error) {
	out := map[Status]int{}
	err := s.read(ctx, func(tx queryer) error {
		rows, err := tx.QueryContext(ctx, `SELECT status, count(*) FROM tasks GROUP BY status`)
		if err != nil {
			return fmt.Errorf("count tasks: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var st Status
			var n int
			if err := rows.Scan(&st, &n); err != nil {
				return fmt.Errorf("count tasks: %w", err)
			}
			out[st] = n
		}
		return rows.Err()
	})
	return out, err
}
