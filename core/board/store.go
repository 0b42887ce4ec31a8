package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	// The pure-Go SQLite driver (SQLite translated to Go, no cgo): static
	// builds stay static. docs/dependencies.md says why this one.
	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"
)

// busyTimeout is how long a statement waits for another process's write
// to finish before failing: every core, the CLI and the dashboard share
// one file, and a write takes milliseconds.
const busyTimeout = 10 * time.Second

// Store is an open board database. Its methods are safe for concurrent
// use, and so is the file: any number of processes may open it at once.
type Store struct {
	db    *sql.DB
	path  string
	place place // where SQLite opens it; released by Close
}

// DefaultPath is where the board lives unless --tasks-db says otherwise.
const DefaultPath = "~/.boris/boris.db"

// ExpandPath resolves a leading "~/" against home and makes path absolute
// and real in the part that is the operator's: HOME's links are resolved
// for "~/REST" and the directory's for any other path, once, here; REST,
// or the file's own name, is opened without following any link (see
// place.go), so that a principal who writes in HOME cannot make its board
// lead elsewhere.
func ExpandPath(path, home string) (string, error) {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home == "" {
			return "", fmt.Errorf("%s: HOME is not set, so ~ means nothing; give an absolute path", path)
		}
		abs, err := filepath.Abs(home)
		if err != nil {
			return "", err
		}
		return filepath.Join(RealPrefix(abs), strings.TrimPrefix(path, "~")), nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Join(RealPrefix(filepath.Dir(abs)), filepath.Base(abs)), nil
}

// RealPrefix resolves the links of the longest part of the absolute path p
// that exists, and keeps the rest as it is.
func RealPrefix(p string) string {
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// ResolvePath is ExpandPath's result, or path unchanged where that fails
// (no HOME for a "~"), so that the failure is reported when the board is
// first used rather than stopping a process that may never use it.
func ResolvePath(path, home string) string {
	if abs, err := ExpandPath(path, home); err == nil {
		return abs
	}
	return path
}

// Open opens the board at path, creating it (and its directories, 0700)
// if need be, and brings its schema up to date. path must be absolute and
// real (ExpandPath's): a symbolic link anywhere on it is refused (ErrLink),
// and so is a board that is not a regular file (ErrNotRegular). A new
// database file is private to its owner (0600); SQLite gives its -wal and
// -shm files the same mode.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	}
	pl, err := locate(abs, true)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", dsn(pl.name))
	if err != nil {
		pl.release()
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	}
	// One connection per process: a process's own calls queue in Go
	// (where a cancelled context lets them go) instead of polling
	// SQLite's lock against each other.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path, place: pl}
	if err := s.migrateRetrying(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open task database %s: %w", path, err)
	}
	return s, nil
}

// migrateRetrying migrates, trying again for up to busyTimeout while
// SQLite reports the database busy. Processes opening a new database at
// once race to switch it to WAL, and SQLite answers that switch, and the
// schema read beside it, with SQLITE_BUSY at once instead of waiting in
// its busy handler; the loser only has to try again.
func (s *Store) migrateRetrying(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := s.migrate(ctx)
		if err == nil || !errors.Is(err, sqlite3.BUSY) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// dsn is the driver's URI for path: the busy timeout first (so that the
// pragmas after it wait for other processes too), then WAL so readers
// never block the writer, and foreign keys, which SQLite leaves off.
// Write transactions begin IMMEDIATE (the driver's default), so a
// transaction that reads before it writes holds the write lock from the
// start and never fails half-way on another process's write.
func dsn(path string) string {
	q := url.Values{}
	q.Set("vfs", vfsName)
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "foreign_keys(on)")
	q.Add("_pragma", "synchronous(full)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.place.release != nil {
		s.place.release()
	}
	return err
}

// write runs f in one write transaction, committed if f succeeds.
func (s *Store) write(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// read runs f in one read transaction: what it reads is one snapshot.
func (s *Store) read(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	return f(tx)
}

// now is the time stored in created_at and updated_at.
func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// queryer is what a transaction and the database have in common.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// notFound is ErrNotFound for key.
func notFound(key int64) error { return fmt.Errorf("%w: %s", ErrNotFound, FormatID(key)) }

// isNoRows reports whether err is a query's "no row".
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
