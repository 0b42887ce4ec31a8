package board

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	// The pure-Go PostgreSQL driver (no cgo, no libpq): it parses URLs,
	// passfiles, PG* variables and TLS settings as libpq does. README
	// "Dependencies" says why this one.
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PGStore is a board in a PostgreSQL database: the tables of one schema,
// named after the role the URL connects as (PostgreSQL's own "$user"
// convention). Each principal's role owns its schema and is granted
// nothing else, so the database itself keeps one principal's board from
// another's (see ProvisionRole). Its methods are safe for concurrent use,
// by any number of processes on any number of hosts.
type PGStore struct {
	engine
	where string // the URL, its password removed
}

// PGOptions are how a PostgreSQL board is reached beyond its URL.
type PGOptions struct {
	// PasswordFile, if set, is a file holding the role's password (its
	// first line; a trailing newline is not part of it). Else the driver
	// looks where libpq does: passfile=, PGPASSFILE, ~/.pgpass, PGPASSWORD.
	PasswordFile string
	// Password, if set, is the role's password itself, for a process that
	// holds it only in memory (the gateway's dashboard reading a
	// principal's board as that principal's role). It wins over
	// PasswordFile.
	Password string
	// ReadOnly opens the board for reading only (the dashboard): every
	// transaction is read-only, and nothing is created.
	ReadOnly bool
}

// pgPoolSize bounds one process's connections: a core's calls are few
// at a time, and a server's connections are shared by every host.
const pgPoolSize = 4

// OpenPostgres opens the board at the PostgreSQL URL target (postgres://
// or postgresql://, with the driver's standard parameters: sslmode,
// sslrootcert, connect_timeout, ...). Unless o.ReadOnly, it creates the
// role's schema if the role may and brings the schema up to date; a
// read-only open of a board nobody created is ErrNoBoard.
func OpenPostgres(ctx context.Context, target string, o PGOptions) (*PGStore, error) {
	where := Redact(target)
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	cfg, err := pgConfig(target, o)
	if err != nil {
		return nil, fmt.Errorf("open task database %s: %w", where, err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(pgPoolSize)
	db.SetMaxIdleConns(pgPoolSize)
	s := &PGStore{engine: engine{db: db, tx: pgTx{db}}, where: where}
	if o.ReadOnly {
		err = s.checkReadable(ctx)
	} else {
		err = s.migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open task database %s: %w", where, err)
	}
	return s, nil
}

// pgConfig is the driver's configuration for target: its own parsing of
// the URL and of libpq's variables and files, the password from
// o.PasswordFile, and the session settings a board needs.
func pgConfig(target string, o PGOptions) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("parse the URL: %w", err) // pgconn's message redacts passwords
	}
	if o.PasswordFile != "" {
		pw, err := readPasswordFile(o.PasswordFile)
		if err != nil {
			return nil, err
		}
		cfg.Password = pw
	}
	if o.Password != "" {
		cfg.Password = o.Password
	}
	// Only the role's own schema: a table of the same name elsewhere can
	// never stand in for the board's.
	cfg.RuntimeParams["search_path"] = `"$user"`
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "boris"
	}
	if o.ReadOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return cfg, nil
}

// ConnectPG is one connection to the PostgreSQL database at target,
// authenticated as OpenPostgres would be: for an administrator's work
// (the gateway provisioning principals' roles), not a board's.
func ConnectPG(ctx context.Context, target string, o PGOptions) (*pgx.Conn, error) {
	where := Redact(target)
	if err := CheckTarget(target); err != nil {
		return nil, err
	}
	cfg, err := pgConfig(target, o)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	return conn, nil
}

// readPasswordFile reads a password from the first line of path.
func readPasswordFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the password file: %w", err)
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if pw == "" {
		return "", fmt.Errorf("read the password file %s: its first line is empty", path)
	}
	return pw, nil
}

// Where is the database URL without its password.
func (s *PGStore) Where() string { return s.where }

// Close closes the store's connections.
func (s *PGStore) Close() error { return s.db.Close() }

// pgTx runs the engine's transactions on PostgreSQL. A write first locks
// the board's tasks table in EXCLUSIVE mode, which waits for the other
// writers of this board (on any host) and lets readers be: one writer at
// a time, as SQLite's BEGIN IMMEDIATE gives, so two hosts adding the two
// halves of a cycle at once cannot both pass the cycle check, nor two
// creates pass MaxTasks. Without the lock, SERIALIZABLE alone would give
// that too, but every create counts the tasks (MaxTasks), which makes
// every two concurrent creates a serialization failure, and a busy board
// spends its time in retries (measured by make bench-board). The
// transaction is SERIALIZABLE as well, so a write that ever runs without
// the lock stays correct, and one PostgreSQL aborts anyway (SQLSTATE
// 40001, or 40P01 for a deadlock) is run again from the start.
type pgTx struct{ db *sql.DB }

// lockWriters is a write's first statement. LOCK is not a query, so the
// serializable snapshot is taken after it is granted: the write sees
// every write before it.
const lockWriters = `LOCK TABLE tasks IN EXCLUSIVE MODE`

// pgRetries bounds the runs of one write that keeps losing to others.
const pgRetries = 30

// write runs f in one serializable transaction holding the writers'
// lock, again while PostgreSQL reports a serialization failure or a
// deadlock.
func (p pgTx) write(ctx context.Context, f func(queryer) error) error {
	for attempt := 1; ; attempt++ {
		err := p.once(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable}, func(q queryer) error {
			if _, err := q.ExecContext(ctx, lockWriters); err != nil {
				return fmt.Errorf("wait for the board's other writers: %w", err)
			}
			return f(q)
		})
		if err == nil || !retryable(err) || attempt == pgRetries {
			return err
		}
		// Back off a little, at random, so the two losers of a conflict
		// do not meet again at once.
		wait := time.Duration(rand.Int64N(int64(attempt)*int64(2*time.Millisecond))) + time.Millisecond
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// read runs f in one read-only snapshot (REPEATABLE READ): what it reads
// is one state of the board.
func (p pgTx) read(ctx context.Context, f func(queryer) error) error {
	return p.once(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}, f)
}

// once runs f in one transaction of options o.
func (p pgTx) once(ctx context.Context, o *sql.TxOptions, f func(queryer) error) error {
	tx, err := p.db.BeginTx(ctx, o)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := f(pgQueryer{tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// retryable reports whether err is PostgreSQL asking for the transaction
// to be run again: serialization_failure or deadlock_detected.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// pgQueryer runs the engine's queries, written with SQLite's "?"
// placeholders, with PostgreSQL's numbered ones ($1, $2, ...). No query
// of the engine has a "?" anywhere but as a placeholder.
type pgQueryer struct{ tx *sql.Tx }

// QueryContext runs query with numbered placeholders.
func (q pgQueryer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return q.tx.QueryContext(ctx, numbered(query), args...)
}

// QueryRowContext runs query with numbered placeholders.
func (q pgQueryer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return q.tx.QueryRowContext(ctx, numbered(query), args...)
}

// ExecContext runs query with numbered placeholders.
func (q pgQueryer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return q.tx.ExecContext(ctx, numbered(query), args...)
}

// numbered is query with each "?" replaced by $1, $2, ... in order.
func numbered(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
