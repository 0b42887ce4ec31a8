package board

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/mjkoo/boris/internal/pgtest"
)

// TestTargets: what --tasks-db values are taken as, and what is refused.
func TestTargets(t *testing.T) {
	for _, tc := range []struct {
		target   string
		postgres bool
		want     error // nil: accepted
	}{
		{"/var/lib/boris/boris.db", false, nil},
		{"boards/team.db", false, nil},
		{"~/.boris/boris.db", false, nil},
		{"postgres://boris@db.example/team?sslmode=verify-full&sslrootcert=/etc/ca.pem", true, nil},
		{"postgresql://boris@/team?host=/run/postgresql", true, nil},
		{"POSTGRES://boris@db/team", true, nil},
		{"mysql://root@db/boris", false, ErrScheme},
		{"http://example.com/boris.db", false, ErrScheme},
		{"foo:bar://x", false, ErrScheme},
		{"sqlite:///tmp/x.db", false, ErrScheme},
		{"postgres:team", false, ErrScheme},
		{"postgres://boris:hunter2@db/team", true, ErrPasswordInURL},
		{"postgres://boris@db/team?password=hunter2", true, ErrPasswordInURL},
	} {
		t.Run(tc.target, func(t *testing.T) {
			if got := IsPostgres(tc.target); got != tc.postgres {
				t.Errorf("IsPostgres = %v, want %v", got, tc.postgres)
			}
			err := CheckTarget(tc.target)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("CheckTarget: err = %v, want %v", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
			if tc.want != nil {
				if _, err := OpenBoard(context.Background(), tc.target, PGOptions{}); !errors.Is(err, tc.want) {
					t.Errorf("OpenBoard: err = %v, want %v", err, tc.want)
				}
				if _, err := ExpandPath(tc.target, "/home/x"); !errors.Is(err, tc.want) {
					t.Errorf("ExpandPath: err = %v, want %v", err, tc.want)
				}
			}
		})
	}
}

// TestUnknownSchemeMakesNothing: a refused URL is never a path, so no
// directory named after its scheme appears.
func TestUnknownSchemeMakesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, target := range []string{"mysql://root@db/boris", "postgres:boris/x.db"} {
		if _, err := OpenBoard(context.Background(), target, PGOptions{}); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: err = %v, want ErrScheme", target, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("opening refused URLs made %v in the working directory", entries)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"/var/lib/boris.db":                        "/var/lib/boris.db",
		"postgres://u:secret@db/team":              "postgres://u:REDACTED@db/team",
		"postgres://u@db/team?password=secret&x=1": "postgres://u@db/team?password=REDACTED&x=1",
		"postgres://u@db/team?sslmode=require":     "postgres://u@db/team?sslmode=require",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPostgresIsolation: a principal's role, connected with its own
// credentials and sending whatever SQL it likes, cannot read or change
// another principal's board: PostgreSQL refuses, not Boris.
func TestPostgresIsolation(t *testing.T) {
	ctx := context.Background()
	a, b := newPGBoard(t), newPGBoard(t)
	sb := b.open(t)
	mustCreate(t, sb, "B's secret plan", NewTask{Context: "launch codes"})
	sa := a.open(t)
	mustCreate(t, sa, "A's task", NewTask{})
	if tasks, _, err := sa.List(ctx, Filter{}); err != nil || len(tasks) != 1 || tasks[0].Description != "A's task" {
		t.Fatalf("A's board lists %+v, %v; want A's one task", tasks, err)
	}
	cfg, err := pgConfig(a.url, PGOptions{PasswordFile: a.passwordFile})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var aRole string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&aRole); err != nil {
		t.Fatal(err)
	}
	bRole := strings.TrimPrefix(strings.Split(b.url, "@")[0], "postgres://")
	bs := pgx.Identifier{bRole}.Sanitize()
	// Each attack is statements run in order on A's connection; the last
	// must be refused: insufficient_privilege, or, where PostgreSQL skips
	// a schema A may not use, no such table.
	for _, attack := range [][]string{
		{"SELECT description, context FROM " + bs + ".tasks"},
		{"SET search_path TO " + bs, "SELECT description FROM tasks"},
		{"SET ROLE " + bs},
		{"SET SESSION AUTHORIZATION " + bs},
		{"UPDATE " + bs + ".tasks SET description = 'pwned'"},
		{"DELETE FROM " + bs + ".blockers"},
		{"GRANT USAGE ON SCHEMA " + bs + " TO " + pgx.Identifier{aRole}.Sanitize()},
		{"ALTER SCHEMA " + bs + " OWNER TO " + pgx.Identifier{aRole}.Sanitize()},
		{"DROP SCHEMA " + bs + " CASCADE"},
		{"CREATE ROLE intruder LOGIN"},
		{"ALTER ROLE " + bs + " PASSWORD 'known'"},
		{"COPY " + bs + ".tasks TO STDOUT"},
		{"SELECT pg_read_file('postgresql.auto.conf')"},
	} {
		t.Run(attack[len(attack)-1], func(t *testing.T) {
			defer conn.Exec(ctx, "RESET ALL")
			for _, q := range attack[:len(attack)-1] {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Logf("%s: %v", q, err)
				}
			}
			pgtest.Refused(t, conn, "A's role", attack[len(attack)-1])
		})
	}
	if got, err := sb.Get(ctx, "W-1"); err != nil || got.Description != "B's secret plan" {
		t.Errorf("B's task after A's attempts: %+v, %v", got, err)
	}
}

// TestPostgresHostsAtOnce: several stores, each with its own connections
// as processes on different hosts have, write one board at once: every
// create lands, no read-modify-write is lost, and of two blockers that
// would close a cycle added at the same moment, exactly one is kept.
func TestPostgresHostsAtOnce(t *testing.T) {
	ctx := context.Background()
	pb := newPGBoard(t)
	const hosts, each, pairs = 4, 20, 15
	stores := make([]*PGStore, hosts)
	for i := range stores {
		stores[i] = pb.open(t)
	}
	mustCreate(t, stores[0], "counter", NewTask{Context: "0"})
	for i := range pairs * 2 {
		mustCreate(t, stores[0], fmt.Sprintf("pair task %d", i), NewTask{})
	}
	var wg sync.WaitGroup
	errs := make(chan error, hosts*each+2*pairs)
	for h, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := s.Create(ctx, NewTask{Description: fmt.Sprintf("host %d task %d", h, i)}); err != nil {
					errs <- err
				}
				errs <- s.write(ctx, func(tx queryer) error {
					var c string
					if err := tx.QueryRowContext(ctx, `SELECT context FROM tasks WHERE id = 1`).Scan(&c); err != nil {
						return err
					}
					var v int
					fmt.Sscan(c, &v)
					_, err := tx.ExecContext(ctx, `UPDATE tasks SET context = ? WHERE id = 1`, fmt.Sprint(v+1))
					return err
				})
			}
		}()
	}
	cycles := make(chan error, 2*pairs)
	for p := range pairs {
		x, y := FormatID(int64(2+2*p)), FormatID(int64(3+2*p))
		for k, e := range [][2]string{{x, y}, {y, x}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := stores[k].AddBlocker(ctx, e[0], e[1])
				cycles <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	close(cycles)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	refused := 0
	for err := range cycles {
		switch {
		case errors.Is(err, ErrCycle):
			refused++
		case err != nil:
			t.Errorf("add blocker: %v", err)
		}
	}
	if refused != pairs {
		t.Errorf("%d of %d opposite blockers refused as cycles, want exactly %d (one of each pair)", refused, 2*pairs, pairs)
	}
	counter, err := stores[1].Get(ctx, "W-1")
	if err != nil || counter.Context != fmt.Sprint(hosts*each) {
		t.Errorf("counter = %q (%v) after %d increments: updates were lost", counter.Context, err, hosts*each)
	}
	counts, err := stores[2].Counts(ctx)
	if want := 1 + 2*pairs + hosts*each; err != nil || counts[Pending] != want {
		t.Errorf("%d pending tasks (%v), want %d", counts[Pending], err, want)
	}
	var edges int
	stores[3].read(ctx, func(q queryer) error { return q.QueryRowContext(ctx, `SELECT count(*) FROM blockers`).Scan(&edges) })
	if edges != pairs {
		t.Errorf("%d blockers kept, want %d: a cycle was stored", edges, pairs)
	}
}

// TestPostgresMigrations: stores opening a new board at once migrate it
// once; a board newer than this build is refused; a read-only open of a
// board nobody made is ErrNoBoard and makes nothing.
func TestPostgresMigrations(t *testing.T) {
	ctx := context.Background()
	pb := newPGBoard(t)
	if _, err := OpenBoardReadOnly(ctx, pb.url, PGOptions{PasswordFile: pb.passwordFile}); !errors.Is(err, ErrNoBoard) {
		t.Fatalf("read-only open of a new board: err = %v, want ErrNoBoard", err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := OpenPostgres(ctx, pb.url, PGOptions{PasswordFile: pb.passwordFile})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	s := pb.open(t)
	var n int
	s.read(ctx, func(q queryer) error {
		return q.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n)
	})
	if n != len(pgMigrations) {
		t.Errorf("schema_migrations holds %d rows, want %d: a migration ran twice or not at all", n, len(pgMigrations))
	}
	ro, err := OpenBoardReadOnly(ctx, pb.url, PGOptions{PasswordFile: pb.passwordFile})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Create(ctx, NewTask{Description: "from the dashboard"}); err == nil {
		t.Error("a read-only board took a write")
	}
	if err := s.write(ctx, func(q queryer) error {
		_, err := q.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, '')`, len(pgMigrations)+1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, pb.url, PGOptions{PasswordFile: pb.passwordFile}); err == nil || !strings.Contains(err.Error(), "upgrade boris") {
		t.Errorf("open of a newer board: err = %v, want one saying to upgrade boris", err)
	}
}

// TestPostgresCredentials: a wrong password file fails with a clear
// error that shows no password, and the password file's first line is
// the password.
func TestPostgresCredentials(t *testing.T) {
	ctx := context.Background()
	pb := newPGBoard(t)
	wrong := t.TempDir() + "/wrong"
	os.WriteFile(wrong, []byte("not-the-password\n"), 0o600)
	_, err := OpenPostgres(ctx, pb.url, PGOptions{PasswordFile: wrong})
	if err == nil || strings.Contains(err.Error(), "not-the-password") || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("wrong password: err = %v, want an authentication failure that does not show it", err)
	}
	if _, err := OpenPostgres(ctx, pb.url, PGOptions{PasswordFile: t.TempDir() + "/absent"}); err == nil || !strings.Contains(err.Error(), "password file") {
		t.Errorf("missing password file: err = %v, want one naming the password file", err)
	}
	t.Setenv("PGPASSFILE", "")
	pw, _ := os.ReadFile(pb.passwordFile)
	t.Setenv("PGPASSWORD", strings.TrimSpace(string(pw)))
	s, err := OpenPostgres(ctx, pb.url, PGOptions{})
	if err != nil {
		t.Fatalf("open with PGPASSWORD: %v", err)
	}
	s.Close()
}
