package pgroles

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/internal/pgtest"
)

var postgres pgtest.Lazy

func TestMain(m *testing.M) {
	code := m.Run()
	postgres.Stop()
	os.Exit(code)
}

// hostileKeys are principals' SubjectKeys (kind NUL subject) a hostile
// token file or identity provider could produce.
var hostileKeys = []string{
	"token\x00alice",
	"jwt\x00alice", // the same subject from a JWT: another principal
	"token\x00Alice",
	"token\x00alice_",
	"token\x00alice ",
	"token\x00\"; DROP ROLE boris_admin; --",
	"token\x00bob'); SELECT pg_sleep(10); --",
	"token\x00pg_signal_backend",
	"token\x00boris_gateway",
	"token\x00" + strings.Repeat("x", 500),
	"token\x00" + strings.Repeat("x", 499) + "y", // same first 24 characters and length
	"token\x00ünïcødé \u202eevil",
	"token\x00nul\x00inside",
	"token\x00",
}

// identRE is what a role name must be: no quoting ever needed, within
// PostgreSQL's 63 bytes (it cuts longer names), not a reserved pg_ name.
var identRE = regexp.MustCompile(`^boris_[a-z0-9_]{1,57}$`)

// TestRoleName: every principal's role name is a plain identifier that
// PostgreSQL never cuts, the same each time for one principal, and
// different for any two, however alike their subjects.
func TestRoleName(t *testing.T) {
	seen := map[string]string{}
	for _, key := range hostileKeys {
		name := RoleName(key)
		if !identRE.MatchString(name) || len(name) > 63 {
			t.Errorf("RoleName(%q) = %q, want a plain identifier of at most 63 bytes", key, name)
		}
		if again := RoleName(key); again != name {
			t.Errorf("RoleName(%q) = %q then %q, want the same", key, name, again)
		}
		if other, dup := seen[name]; dup {
			t.Errorf("RoleName(%q) = RoleName(%q) = %q: two principals share a role", key, other, name)
		}
		seen[name] = key
	}
}

// TestURL: a principal's URL is the operator's with the principal's role
// as its user, and nothing of what authenticates the operator.
func TestURL(t *testing.T) {
	r := &Registry{admin: "postgres://operator@db.example:5433/boris?sslmode=verify-full&sslrootcert=/etc/ca.pem&passfile=/etc/pgpass&sslcert=/etc/op.crt&sslkey=/etc/op.key&user=operator"}
	got := r.URL("token\x00alice")
	for _, want := range []string{"postgres://" + RoleName("token\x00alice") + "@db.example:5433/boris?", "sslmode=verify-full", "sslrootcert=%2Fetc%2Fca.pem"} {
		if !strings.Contains(got, want) {
			t.Errorf("URL = %q, want it to hold %q", got, want)
		}
	}
	for _, gone := range []string{"operator", "passfile", "sslcert", "sslkey", "op.key"} {
		if strings.Contains(got, gone) {
			t.Errorf("URL = %q, want no %q: the operator's credentials are not a principal's", got, gone)
		}
	}
}

// openRegistry is a registry on the test's server as its superuser.
func openRegistry(t *testing.T, srv *pgtest.Server) *Registry {
	t.Helper()
	r, err := Open(context.Background(), srv.URL(""), board.PGOptions{PasswordFile: srv.PasswordFile()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// openAs opens key's board with the credentials its core is given.
func openAs(t *testing.T, r *Registry, key string) (*board.PGStore, Role) {
	t.Helper()
	ctx := context.Background()
	role, err := r.Role(ctx, key, key)
	if err != nil {
		t.Fatalf("Role(%q): %v", key, err)
	}
	s, err := board.OpenPostgres(ctx, role.URL, board.PGOptions{Password: role.Password})
	if err != nil {
		t.Fatalf("open %q's board as its role: %v", key, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, role
}

// TestRolesKeptApart: two principals provisioned by the registry each
// write their own board; the first, connected with exactly its core's
// credentials and sending whatever SQL it likes, cannot read or change
// the second's board, nor read the roles' passwords: PostgreSQL refuses.
func TestRolesKeptApart(t *testing.T) {
	srv := postgres.Get(t)
	ctx := context.Background()
	r := openRegistry(t, srv)
	alice, aliceRole := openAs(t, r, "token\x00alice")
	bob, bobRole := openAs(t, r, "token\x00bob")
	if _, err := alice.Create(ctx, board.NewTask{Description: "alice's task"}); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Create(ctx, board.NewTask{Description: "bob's secret", Context: "launch codes"}); err != nil {
		t.Fatal(err)
	}
	if tasks, _, err := alice.List(ctx, board.Filter{}); err != nil || len(tasks) != 1 || tasks[0].Description != "alice's task" {
		t.Fatalf("alice's board lists %+v, %v; want her one task", tasks, err)
	}
	cfg, err := pgx.ParseConfig(aliceRole.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = aliceRole.Password
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	bs := pgx.Identifier{bobRole.Name}.Sanitize()
	for _, attack := range [][]string{
		{"SELECT description, context FROM " + bs + ".tasks"},
		{"SET search_path TO " + bs, "SELECT description FROM tasks"},
		{"UPDATE " + bs + ".tasks SET description = 'pwned'"},
		{"SET ROLE " + bs},
		{"SET ROLE " + pgtest.Admin},
		{"SELECT role, password FROM " + Schema + ".principal_roles"},
		{"SET search_path TO " + Schema, "SELECT password FROM principal_roles"},
		{"ALTER ROLE " + bs + " PASSWORD 'known'"},
		{"GRANT " + bs + " TO " + pgx.Identifier{aliceRole.Name}.Sanitize()},
		{"DROP SCHEMA " + bs + " CASCADE"},
		{"CREATE SCHEMA intruder"},
		{"SELECT rolpassword FROM pg_authid"},
	} {
		t.Run(attack[len(attack)-1], func(t *testing.T) {
			defer conn.Exec(ctx, "RESET ALL")
			for _, q := range attack[:len(attack)-1] {
				conn.Exec(ctx, q)
			}
			pgtest.Refused(t, conn, "alice's role", attack[len(attack)-1])
		})
	}
	if got, err := bob.Get(ctx, "W-1"); err != nil || got.Description != "bob's secret" {
		t.Errorf("bob's task after alice's attempts: %+v, %v", got, err)
	}
}

// TestRolesRestartAndHosts: a registry opened again (a restarted gateway)
// and several opened at once (gateways on several hosts) provisioning one
// principal at the same moment all give it one role with one password,
// and its board keeps its tasks.
func TestRolesRestartAndHosts(t *testing.T) {
	srv := postgres.Get(t)
	ctx := context.Background()
	const key = "jwt\x00carol@example.com"
	const hosts = 4
	regs := make([]*Registry, hosts)
	for i := range regs {
		regs[i] = openRegistry(t, srv)
	}
	roles := make([]Role, hosts)
	errs := make([]error, hosts)
	var wg sync.WaitGroup
	for i, r := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			roles[i], errs[i] = r.Role(ctx, key, "carol@example.com")
		}()
	}
	wg.Wait()
	for i := range regs {
		if errs[i] != nil || roles[i] != roles[0] {
			t.Fatalf("host %d: %+v, %v; want host 0's %+v", i, roles[i], errs[i], roles[0])
		}
	}
	s, _ := openAs(t, regs[0], key)
	if _, err := s.Create(ctx, board.NewTask{Description: "before the restart"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	restarted := openRegistry(t, srv)
	again, role := openAs(t, restarted, key)
	if role != roles[0] {
		t.Errorf("after a restart the role is %+v, want %+v: the running cores' password must stay valid", role, roles[0])
	}
	if got, err := again.Get(ctx, "W-1"); err != nil || got.Description != "before the restart" {
		t.Errorf("after a restart W-1 is %+v, %v; want the task written before", got, err)
	}
}

// TestRolesHostileNames: principals whose subjects are hostile SQL, long,
// or alike each get a working board of their own in the database.
func TestRolesHostileNames(t *testing.T) {
	srv := postgres.Get(t)
	ctx := context.Background()
	r := openRegistry(t, srv)
	for _, key := range hostileKeys[:len(hostileKeys)-1] {
		s, role := openAs(t, r, key)
		if _, err := s.Create(ctx, board.NewTask{Description: "owned by " + role.Name}); err != nil {
			t.Fatalf("%q: create: %v", key, err)
		}
		tasks, _, err := s.List(ctx, board.Filter{})
		if err != nil || !slices.ContainsFunc(tasks, func(tk board.Task) bool { return tk.Description == "owned by "+role.Name }) {
			t.Errorf("%q's board lists %+v, %v; want the task just written", key, tasks, err)
		}
		for _, tk := range tasks {
			if strings.HasPrefix(tk.Description, "owned by ") && tk.Description != "owned by "+role.Name {
				t.Errorf("%q's board holds %q, another principal's task", key, tk.Description)
			}
		}
	}
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var n int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_roles WHERE rolname = 'boris_admin'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the superuser role: %d, %v; a subject's SQL was run", n, err)
	}
}

// TestRolesOperatorNotSuperuser: an operator's role with only CREATEROLE
// and CREATE on the database provisions principals' roles; one without
// CREATEROLE, and a schema named like the passwords' but owned by another
// role, are refused at once, saying why.
func TestRolesOperatorNotSuperuser(t *testing.T) {
	srv := postgres.Get(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "boris_operator_test"
	for _, q := range []string{
		"CREATE DATABASE " + db,
		"CREATE ROLE gw_operator LOGIN CREATEROLE PASSWORD 'operator-password-0123456789'",
		"GRANT CREATE ON DATABASE " + db + " TO gw_operator",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	pwfile := t.TempDir() + "/operator.password"
	if err := os.WriteFile(pwfile, []byte("operator-password-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, srv.RoleURL("gw_operator", db), board.PGOptions{PasswordFile: pwfile})
	if err != nil {
		t.Fatalf("open as a CREATEROLE operator: %v", err)
	}
	s, _ := openAs(t, r, "token\x00dave")
	if _, err := s.Create(ctx, board.NewTask{Description: "dave's"}); err != nil {
		t.Fatal(err)
	}

	if _, err := admin.Exec(ctx, "CREATE ROLE gw_plain LOGIN PASSWORD 'operator-password-0123456789'"); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, srv.RoleURL("gw_plain", db), board.PGOptions{PasswordFile: pwfile})
	if err == nil || !strings.Contains(err.Error(), "CREATEROLE") {
		t.Errorf("open as a role without CREATEROLE: %v; want it refused, saying CREATEROLE is needed", err)
	}

	const other = "boris_squatted_test"
	for _, q := range []string{
		"CREATE DATABASE " + other,
		"GRANT CREATE ON DATABASE " + other + " TO gw_operator",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	squat, err := board.ConnectPG(ctx, srv.URL(other), board.PGOptions{PasswordFile: srv.PasswordFile()})
	if err != nil {
		t.Fatal(err)
	}
	defer squat.Close(ctx)
	if _, err := squat.Exec(ctx, "CREATE SCHEMA "+Schema); err != nil { // the superuser's, not the operator's
		t.Fatal(err)
	}
	_, err = Open(ctx, srv.RoleURL("gw_operator", other), board.PGOptions{PasswordFile: pwfile})
	if err == nil || !strings.Contains(err.Error(), "belongs to role "+pgtest.Admin) {
		t.Errorf("open where %s is another role's: %v; want it refused, naming the owner", Schema, err)
	}
}

// BenchmarkRole measures what a principal's role costs the gateway:
// provisioning it on the principal's first use (a connection as the
// operator, the role, its schema and its password in one transaction),
// and every later use (a lookup in memory).
func BenchmarkRole(b *testing.B) {
	srv := postgres.Get(b)
	ctx := context.Background()
	r, err := Open(ctx, srv.URL(""), board.PGOptions{PasswordFile: srv.PasswordFile()})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("first use", func(b *testing.B) {
		for i := range b.N {
			if _, err := r.Role(ctx, fmt.Sprintf("token\x00bench-%d-%d", b.N, i), "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("known", func(b *testing.B) {
		for range b.N {
			if _, err := r.Role(ctx, "token\x00bench-known", "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
