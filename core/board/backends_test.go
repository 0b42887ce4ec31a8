package board

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mjkoo/boris/internal/pgtest"
)

// postgres is the package's PostgreSQL server, started by the first test
// that needs it and stopped by TestMain.
var postgres pgtest.Lazy

// roles numbers the roles (so the boards) the tests make.
var roles atomic.Int64

// pgBoard is a fresh PostgreSQL board: a new role, provisioned as the
// gateway does a principal's, with its password in a file.
type pgBoard struct {
	url, passwordFile string
}

// newPGBoard provisions a role of its own for t on the package's server.
func newPGBoard(t testing.TB) pgBoard {
	t.Helper()
	srv := postgres.Get(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	role := "board_test_" + strings.ToLower(strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	role = role[:min(len(role), 40)] + "_" + strconv.FormatInt(roles.Add(1), 10)
	pw, err := ProvisionRole(ctx, admin, role)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return pgBoard{url: srv.RoleURL(role, ""), passwordFile: file}
}

// open opens b.
func (b pgBoard) open(t testing.TB) *PGStore {
	t.Helper()
	s, err := OpenPostgres(context.Background(), b.url, PGOptions{PasswordFile: b.passwordFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openPG opens a fresh PostgreSQL board.
func openPG(t testing.TB) *PGStore { return newPGBoard(t).open(t) }

// forEachBoard runs f on a fresh board of each kind: SQLite, and
// PostgreSQL (skipped, saying why, where PostgreSQL cannot be installed).
// Every behaviour f checks holds on both.
func forEachBoard(t *testing.T, f func(t *testing.T, s Board)) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) Board
	}{
		{"sqlite", func(t *testing.T) Board { return open(t) }},
		{"postgres", func(t *testing.T) Board { return openPG(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) { f(t, tc.open(t)) })
	}
}
