package board

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ProvisionRole makes role a login role of its own board in the database
// the administrator's connection admin reaches, with a new random
// password, which it returns: the role owns the schema of its name, and is
// granted nothing else (no other schema, no other role, no privilege to
// create roles or databases). So a principal given role's credentials
// reads and writes its own board and no other, whatever SQL it sends:
// PostgreSQL refuses the rest. Running it again for the same role changes
// its password and keeps its board.
func ProvisionRole(ctx context.Context, admin *pgx.Conn, role string) (password string, err error) {
	password, err = NewRolePassword()
	if err != nil {
		return "", fmt.Errorf("provision role %s: %w", role, err)
	}
	tx, err := admin.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("provision role %s: %w", role, err)
	}
	defer tx.Rollback(ctx)
	if err := ProvisionRoleTx(ctx, tx, role, password); err != nil {
		return "", err
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("provision role %s: %w", role, err)
	}
	return password, nil
}

// NewRolePassword is a new random password for a board's role: 48 hex
// digits (192 bits), which no SQL quoting can get wrong.
func NewRolePassword() (string, error) {
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("make a password: %w", err)
	}
	return hex.EncodeToString(buf), nil
}

// ProvisionRoleTx is ProvisionRole inside the administrator's transaction
// tx, with password (NewRolePassword's) as the role's password: creating
// the role or setting its password, and creating its schema, owned by it,
// that PUBLIC may not use. An administrator that is not a superuser (one
// with CREATEROLE and CREATE on the database) is made a member of the
// role first, which PostgreSQL requires of whoever creates a schema owned
// by another role; the role is never made a member of anything.
func ProvisionRoleTx(ctx context.Context, tx pgx.Tx, role, password string) error {
	if err := checkRolePassword(password); err != nil {
		return fmt.Errorf("provision role %s: %w", role, err)
	}
	id := pgx.Identifier{role}.Sanitize()
	var exists, super bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1), (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`, role).Scan(&exists, &super)
	if err != nil {
		return fmt.Errorf("provision role %s: %w", role, err)
	}
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	stmts := []string{verb + ` ROLE ` + id + ` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS PASSWORD '` + password + `'`}
	if !super {
		stmts = append(stmts, `GRANT `+id+` TO CURRENT_USER`)
	}
	stmts = append(stmts,
		`CREATE SCHEMA IF NOT EXISTS `+id+` AUTHORIZATION `+id,
		`REVOKE ALL ON SCHEMA `+id+` FROM PUBLIC`,
	)
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("provision role %s: %w", role, err)
		}
	}
	return nil
}

// checkRolePassword refuses a password that is not hex digits: it is
// written into a statement (ALTER ROLE takes no parameters), so only
// text no quoting can go wrong with is accepted.
func checkRolePassword(pw string) error {
	if len(pw) < 32 {
		return fmt.Errorf("a role's password must be at least 32 hex digits")
	}
	for _, r := range pw {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return fmt.Errorf("a role's password must be hex digits")
		}
	}
	return nil
}
