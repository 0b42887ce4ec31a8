// Package pgroles provides each principal's own task board on PostgreSQL
// under the gateway (--tasks-db postgres://... with
// --tasks-db-per-principal): a login role per principal, owning the
// schema of its name and granted nothing else, provisioned on first use
// with the operator's credentials, and the credentials that principal's
// cores and dashboard view connect with. The database, not Boris, then
// keeps one principal's board from another's (docs/board.md).
//
// A role's password is made once, at random (board.NewRolePassword), and
// kept in the database itself, in the schema boris_gateway, which only
// the operator's role may use: every gateway given the same database
// (several hosts) and a gateway restarted find the same password, with
// nothing to copy between hosts. Whoever can read that table is the
// operator's role (or a superuser, or a backup), which can read every
// board already.
package pgroles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/mjkoo/boris/core/board"
)

// Schema is the operator's schema that holds the roles' passwords.
const Schema = "boris_gateway"

// Role is a principal's role: the URL its cores open the board at (no
// password in it) and its password.
type Role struct {
	Name     string
	URL      string
	Password string
}

// Registry provisions principals' roles in the database at an operator's
// URL and remembers them. Create it with Open; its methods are safe for
// concurrent use.
type Registry struct {
	admin string          // the operator's URL
	opts  board.PGOptions // how the operator's role authenticates
	mu    sync.Mutex
	known map[string]Role // by role name
}

// Open checks the operator's URL and prepares the database: the schema
// of the roles' passwords, which only the operator's role owns and uses.
// A role that may not create roles or that schema (no CREATEROLE, no
// CREATE on the database), or a schema of that name owned by another
// role, is a clear error.
func Open(ctx context.Context, admin string, o board.PGOptions) (*Registry, error) {
	if !board.IsPostgres(admin) {
		return nil, fmt.Errorf("principals' roles need a postgres:// task database, not %s", board.Redact(admin))
	}
	r := &Registry{admin: admin, opts: o, known: map[string]Role{}}
	conn, err := board.ConnectPG(ctx, admin, o)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return prepare(ctx, tx) }); err != nil {
		return nil, fmt.Errorf("prepare %s for principals' roles: %w", board.Redact(admin), err)
	}
	return r, nil
}

// prepare checks the operator's role may create roles, creates the
// passwords' schema and table unless they exist, and checks the schema
// is the operator role's own.
func prepare(ctx context.Context, tx pgx.Tx) error {
	stmts := []string{
		`SELECT pg_advisory_xact_lock(hashtext('boris gateway roles'))`,
		`CREATE SCHEMA IF NOT EXISTS ` + Schema,
		`REVOKE ALL ON SCHEMA ` + Schema + ` FROM PUBLIC`,
		`CREATE TABLE IF NOT EXISTS ` + Schema + `.principal_roles (
			role       TEXT PRIMARY KEY,
			subject    TEXT NOT NULL,
			password   TEXT NOT NULL,
			created_at TIMESTAMPTZ NOT NULL DEFAULT now()
		)`,
	}
	var role string
	var may bool
	if err := tx.QueryRow(ctx, `SELECT current_user, rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user`).Scan(&role, &may); err != nil {
		return err
	}
	if !may {
		return fmt.Errorf("role %s may not create roles: grant it CREATEROLE (ALTER ROLE %s CREATEROLE) to provision principals' roles", role, pgx.Identifier{role}.Sanitize())
	}
	for _, q := range stmts[:2] {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	var owner string
	var mine bool
	err := tx.QueryRow(ctx, `SELECT pg_get_userbyid(nspowner), nspowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
		FROM pg_namespace WHERE nspname = $1`, Schema).Scan(&owner, &mine)
	if err != nil {
		return err
	}
	if !mine {
		return fmt.Errorf("schema %s belongs to role %s, not to the operator's role: drop it or connect as %s", Schema, owner, owner)
	}
	for _, q := range stmts[2:] {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Role returns the role of the principal whose SubjectKey is key (subject
// names it in the passwords' table): provisioned now if this database has
// none for it, else the one it has, with the password it was made with.
// Gateways on several hosts provisioning one principal at once make one
// role: each takes a lock named for it first.
func (r *Registry) Role(ctx context.Context, key, subject string) (Role, error) {
	if key == "" {
		return Role{}, errors.New("a principal's role needs an authenticated principal")
	}
	name := RoleName(key)
	r.mu.Lock()
	role, ok := r.known[name]
	r.mu.Unlock()
	if ok {
		return role, nil
	}
	pw, err := r.provision(ctx, name, subject)
	if err != nil {
		return Role{}, err
	}
	role = Role{Name: name, URL: r.URL(key), Password: pw}
	r.mu.Lock()
	r.known[name] = role
	r.mu.Unlock()
	return role, nil
}

// provision returns role name's password, making the role, its schema and
// its password first where the database lacks any of them.
func (r *Registry) provision(ctx context.Context, name, subject string) (pw string, err error) {
	conn, err := board.ConnectPG(ctx, r.admin, r.opts)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('boris gateway role ' || $1))`, name); err != nil {
			return err
		}
		var complete bool
		err := tx.QueryRow(ctx, `SELECT password, to_regnamespace(quote_ident(role)) IS NOT NULL AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role)
			FROM `+Schema+`.principal_roles WHERE role = $1`, name).Scan(&pw, &complete)
		switch {
		case err == nil && complete:
			return nil
		case err == nil: // the role or its schema was dropped: made again, with its password
		case errors.Is(err, pgx.ErrNoRows):
			if pw, err = board.NewRolePassword(); err != nil {
				return err
			}
		default:
			return err
		}
		if err := board.ProvisionRoleTx(ctx, tx, name, pw); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO `+Schema+`.principal_roles (role, subject, password) VALUES ($1, $2, $3)
			ON CONFLICT (role) DO UPDATE SET password = excluded.password`, name, shownSubject(subject), pw)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("provision the board role %s of %s: %w", name, subject, err)
	}
	return pw, nil
}

// maxShownSubject bounds a subject as the passwords' table keeps it.
const maxShownSubject = 200

// shownSubject is subject as the passwords' table keeps it, for a person
// reading it: valid UTF-8 without NUL (which PostgreSQL's text cannot
// hold), at most maxShownSubject bytes. The role's name, not this, is
// what tells principals apart.
func shownSubject(subject string) string {
	s := strings.ReplaceAll(strings.ToValidUTF8(subject, "\uFFFD"), "\x00", `\x00`)
	if len(s) > maxShownSubject {
		s = strings.ToValidUTF8(s[:maxShownSubject], "")
	}
	return s
}

// URL is the URL the principal whose SubjectKey is key opens its board
// at: the operator's, with the principal's role as its user, and without
// what authenticates the operator (a password, passfile, client
// certificate and key), which a principal's core must never be given.
func (r *Registry) URL(key string) string {
	u, err := url.Parse(r.admin)
	if err != nil {
		return "" // Open parsed it
	}
	u.User = url.User(RoleName(key))
	q := u.Query()
	for _, p := range []string{"user", "password", "passfile", "sslcert", "sslkey", "sslpassword"} {
		q.Del(p)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Role names are roleNamePrefix, up to roleSlugLen of the subject's
// characters transcribed to [a-z0-9_] (for a person reading pg_roles),
// "_", and roleHashLen hex digits of SHA-256 of the principal's
// SubjectKey (kind NUL subject): at most 55 bytes, within PostgreSQL's 63
// (a longer name would be cut, and two principals could meet), never
// needing quotes, never a reserved pg_ name, and two principals share one
// only if SHA-256 collides in 96 bits.
const (
	roleNamePrefix = "boris_"
	roleSlugLen    = 24
	roleHashLen    = 24
)

// RoleName is the role (and schema) of the principal whose SubjectKey is
// key.
func RoleName(key string) string {
	_, sub, _ := strings.Cut(key, "\x00")
	var slug strings.Builder
	for i := 0; i < len(sub) && slug.Len() < roleSlugLen; i++ {
		c := sub[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			slug.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			slug.WriteByte(c - 'A' + 'a')
		default:
			slug.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(key))
	return roleNamePrefix + slug.String() + "_" + hex.EncodeToString(sum[:])[:roleHashLen]
}
