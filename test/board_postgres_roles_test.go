package test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mjkoo/boris/gateway/pgroles"
	"github.com/mjkoo/boris/internal/pgtest"
)

// pgHostileSub is a JWT subject written to break SQL and terminals.
const pgHostileSub = `x"; DROP ROLE boris_admin; --` + "\u202e'"

// pgPrincipal is a principal of the per-principal board test: its
// session, SubjectKey and the task it writes.
type pgPrincipal struct {
	name, token, key, task string
	s                      *isoSession
}

// TestBoardPostgresPerPrincipal: under one gateway with a PostgreSQL
// --tasks-db and --tasks-db-per-principal, three principals (a static
// token, a JWT, a JWT whose subject is hostile SQL) each get a role and
// board of their own, provisioned by the gateway: each lists only its own
// tasks; a principal's commands see neither its role's password nor the
// operator's; connected with exactly the credentials its core was given,
// a principal's SQL on another's board, or on the roles' passwords, is
// refused by PostgreSQL; after a restart of the gateway every principal
// finds its board and its role's password unchanged; and the dashboard
// shows each principal its own board.
func TestBoardPostgresPerPrincipal(t *testing.T) {
	srv := pgtest.ForTest(t)
	f := newIsoFixture(t)
	adminPW, err := os.ReadFile(srv.PasswordFile())
	if err != nil {
		t.Fatal(err)
	}
	pwfile := filepath.Join(filepath.Dir(f.tokenFile), "db-operator.password")
	writeFile(t, pwfile, string(adminPW))
	flags := []string{"--tasks-db", srv.URL(""), "--tasks-db-password-file", pwfile, "--tasks-db-per-principal", "--cgroups", "off",
		"--dashboard-operator", "jwt:ops"}
	g := startIsoGateway(t, f, flags...)
	ps := []*pgPrincipal{
		{name: "alice", token: authAlice, key: "token\x00alice"},
		{name: "bob", token: authHMACToken(t, "bob", "boris:read boris:write boris:exec"), key: "jwt\x00bob"},
		{name: "hostile", token: authHMACToken(t, pgHostileSub, "boris:read boris:write boris:exec"), key: "jwt\x00" + pgHostileSub},
	}
	for _, p := range ps {
		p.s = g.open(t, p.token, true)
		p.task = p.name + "'s plan"
		isoOK(t, p.s, "create_task", map[string]any{"description": p.task})
	}
	for _, p := range ps {
		if got := pgListed(t, p.s); len(got) != 1 || got[0] != p.task {
			t.Errorf("%s lists %q, want its own task alone", p.name, got)
		}
	}
	passwords := pgRolePasswords(t, srv)
	alice, bob := ps[0], ps[1]
	alicePW := passwords[pgroles.RoleName(alice.key)]
	if len(passwords) != len(ps) || alicePW == "" {
		t.Fatalf("roles provisioned: %d (alice's password %q), want one per principal", len(passwords), alicePW)
	}
	out := isoBash(t, alice.s, "echo pw=${PGPASSWORD:-unset}; env | grep -c '^PG' || true; cat "+pwfile+" 2>&1 || true")
	for _, secret := range []string{alicePW, strings.TrimSpace(string(adminPW))} {
		if strings.Contains(out, secret) {
			t.Errorf("alice's command read a database password: %q", out)
		}
	}
	if !strings.Contains(out, "pw=unset") {
		t.Errorf("alice's command: %q, want no PGPASSWORD", out)
	}
	pgAttack(t, srv, alice.key, alicePW, pgroles.RoleName(bob.key))

	pgStopGateway(t, g.authGateway)
	g = startIsoGateway(t, f, flags...)
	for _, p := range ps {
		p.s = g.open(t, p.token, false)
		isoOK(t, p.s, "create_task", map[string]any{"description": p.task + " after the restart"})
		if got := pgListed(t, p.s); len(got) != 2 || got[0] != p.task {
			t.Errorf("after a restart %s lists %q, want its task and the new one", p.name, got)
		}
	}
	for role, pw := range pgRolePasswords(t, srv) {
		if passwords[role] != pw {
			t.Errorf("role %s's password changed across a restart: running cores would lose their board", role)
		}
	}
	pgDashboardOwn(t, g, alice, ps)
	pgDashboardOperator(t, g, ps)
}

// pgListed lists the descriptions of s's board, oldest first.
func pgListed(t *testing.T, s *isoSession) []string {
	t.Helper()
	res := isoCall(t, s, "list_tasks", map[string]any{})
	if res.IsError {
		t.Fatalf("list_tasks: %s", text(res))
	}
	var out struct {
		Tasks []struct{ ID, Description string }
	}
	structuredAs(t, res, &out)
	var got []string
	for _, task := range out.Tasks { // open, of one priority: oldest first
		got = append(got, task.Description)
	}
	return got
}

// pgRolePasswords reads the principals' roles and passwords the gateway
// keeps in the database, as its operator can.
func pgRolePasswords(t *testing.T, srv *pgtest.Server) map[string]string {
	t.Helper()
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	rows, err := admin.Query(ctx, "SELECT role, password FROM "+pgroles.Schema+".principal_roles")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var role, pw string
		if err := rows.Scan(&role, &pw); err != nil {
			t.Fatal(err)
		}
		out[role] = pw
	}
	return out
}

// pgAttack connects as the principal key with the URL and password its
// core is given, and tries another principal's board and the roles'
// passwords: PostgreSQL must refuse every attempt.
func pgAttack(t *testing.T, srv *pgtest.Server, key, password, victim string) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(srv.RoleURL(pgroles.RoleName(key), ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = password
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect with the core's credentials: %v", err)
	}
	defer conn.Close(ctx)
	v := pgx.Identifier{victim}.Sanitize()
	for _, q := range []string{
		"SELECT description FROM " + v + ".tasks",
		"UPDATE " + v + ".tasks SET description = 'pwned'",
		"SELECT password FROM " + pgroles.Schema + ".principal_roles",
		"SET ROLE " + v,
		"ALTER ROLE " + v + " PASSWORD 'known'",
	} {
		_, err := conn.Exec(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" {
			t.Errorf("%q with the core's credentials: %v, want PostgreSQL's refusal (42501)", q, err)
		}
	}
}

// pgStopGateway stops g (SIGTERM) and waits for it to exit.
func pgStopGateway(t *testing.T, g *authGateway) {
	t.Helper()
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("boris-gateway still running 30 s after SIGTERM")
	}
}

// pgDashboardOwn logs in to g's dashboard as p and checks it shows p's
// board, read as p's role: p's tasks, no other principal's.
func pgDashboardOwn(t *testing.T, g *isoGateway, p *pgPrincipal, all []*pgPrincipal) {
	t.Helper()
	base := strings.TrimSuffix(g.url, "/mcp")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookie := dashLogin(t, c, base, p.token)
	var body string
	var st struct {
		Boards []struct {
			Shared bool
			Error  string
			Tasks  []struct{ Description string }
		}
	}
	waitFor(t, "the dashboard to read alice's board", func() bool {
		var code int
		code, body = dashStateStatus(t, c, base, cookie)
		return code == http.StatusOK && json.Unmarshal([]byte(body), &st) == nil && len(st.Boards) == 1 && len(st.Boards[0].Tasks) > 0
	})
	b := st.Boards[0]
	if b.Shared || b.Error != "" || len(b.Tasks) != 2 {
		t.Fatalf("%s's dashboard boards: %s, want its own board of 2 tasks", p.name, body)
	}
	for _, other := range all {
		if other != p && strings.Contains(body, other.task) {
			t.Errorf("%s's dashboard shows %s's task: %s", p.name, other.name, body)
		}
	}
}

// pgDashboardOperator logs in to g's dashboard as an operator and checks
// it shows every principal's board, each read as that principal's role:
// each board holds the tasks of one principal, all of them.
func pgDashboardOperator(t *testing.T, g *isoGateway, ps []*pgPrincipal) {
	t.Helper()
	base := strings.TrimSuffix(g.url, "/mcp")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookie := dashLogin(t, c, base, authHMACToken(t, "ops", "boris:read"))
	var body string
	var st struct {
		Boards []struct {
			Error string
			Tasks []struct{ Description string }
		}
	}
	waitFor(t, "the dashboard to read every principal's board", func() bool {
		var code int
		code, body = dashStateStatus(t, c, base, cookie)
		if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil {
			return false
		}
		read := 0
		for _, b := range st.Boards {
			if len(b.Tasks) > 0 {
				read++
			}
		}
		return read >= len(ps)
	})
	for _, p := range ps {
		found := false
		for _, b := range st.Boards {
			var mine, others int
			for _, task := range b.Tasks {
				if strings.HasPrefix(task.Description, p.task) {
					mine++
				} else {
					others++
				}
			}
			if mine > 0 && (mine != 2 || others != 0 || b.Error != "") {
				t.Errorf("the operator's dashboard shows a board with %d of %s's tasks and %d others (%q): %s", mine, p.name, others, b.Error, body)
			}
			found = found || mine > 0
		}
		if !found {
			t.Errorf("the operator's dashboard shows no board of %s: %s", p.name, body)
		}
	}
}
