package board

import (
	"context"
	"fmt"
)

// migrations are the schema's versions: migrations[i] takes a database
// from version i to i+1, and PRAGMA user_version holds the version a
// database is at. A released migration is never edited; a change of
// schema is a new one appended here.
var migrations = []string{
	// 1: the first release.
	`CREATE TABLE tasks (
		id          INTEGER PRIMARY KEY AUTOINCREMENT, -- W-<id>; AUTOINCREMENT: a deleted task's id is never reused
		description TEXT NOT NULL,
		status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'in_progress', 'done', 'cancelled')),
		priority    INTEGER NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),
		parent_id   INTEGER REFERENCES tasks (id) ON DELETE RESTRICT,
		context     TEXT NOT NULL DEFAULT '',
		result      TEXT NOT NULL DEFAULT '',
		created_at  TEXT NOT NULL,
		updated_at  TEXT NOT NULL
	);
	CREATE INDEX tasks_parent ON tasks (parent_id);
	CREATE INDEX tasks_status ON tasks (status, priority, id);
	CREATE TABLE blockers (
		task_id       INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,   -- waits for
		blocked_by_id INTEGER NOT NULL REFERENCES tasks (id) ON DELETE RESTRICT,  -- this one
		created_at    TEXT NOT NULL,
		PRIMARY KEY (task_id, blocked_by_id),
		CHECK (task_id <> blocked_by_id)
	) WITHOUT ROWID;
	CREATE INDEX blockers_by ON blockers (blocked_by_id, task_id);
	CREATE TABLE schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at TEXT NOT NULL
	);`,
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrate brings the database to SchemaVersion. Processes opening a new
// database at once all get here: the first to take the write lock
// migrates, the others find the work done.
func (s *Store) migrate(ctx context.Context) error {
	v, err := userVersion(ctx, s.db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil // the common case: no write lock taken
	}
	return s.write(ctx, func(tx queryer) error {
		v, err := userVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > SchemaVersion {
			return fmt.Errorf("its schema is version %d, newer than this boris knows (%d): upgrade boris", v, SchemaVersion)
		}
		for i := v; i < SchemaVersion; i++ {
			if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", i+1, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, i+1, now()); err != nil {
				return fmt.Errorf("record schema version %d: %w", i+1, err)
			}
		}
		// PRAGMA takes no parameters; SchemaVersion is ours, not input.
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion))
		return err
	})
}

// userVersion reads the schema version of the database q reads.
func userVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
