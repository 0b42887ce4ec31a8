package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/pgroles"
	"github.com/mjkoo/boris/internal/pgtest"
)

// TestLaunchForRole: with a role per principal, a principal's core is
// given its own role's URL and password and nothing of the operator's
// (whose password, passfile and core board settings are in the gateway's
// environment); two principals get two roles.
func TestLaunchForRole(t *testing.T) {
	srv := pgtest.ForTest(t)
	roles, err := pgroles.Open(context.Background(), srv.URL(""), board.PGOptions{PasswordFile: srv.PasswordFile()})
	if err != nil {
		t.Fatal(err)
	}
	operator := []string{"HOME=/home/op", "PGPASSWORD=operator-secret", "PGPASSFILE=/home/op/.pgpass", "PGUSER=" + pgtest.Admin,
		"BORIS_TASKS_DB=/home/op/team.db", "BORIS_TASKS_DB_PASSWORD_FILE=/home/op/db.password", "KEPT=1"}
	h := &starter{opts: Options{Environ: operator, Roles: roles}}
	seen := map[string]bool{}
	for _, p := range []Principal{{Subject: "alice", SubjectKey: "token\x00alice"}, {Subject: "bob", SubjectKey: "jwt\x00bob"}} {
		l, err := h.launchFor(p)
		if err != nil {
			t.Fatal(err)
		}
		role, err := roles.Role(context.Background(), p.SubjectKey, p.Subject)
		if err != nil {
			t.Fatal(err)
		}
		if db, _ := launch.FlagValue(l.Args, "tasks-db"); db != role.URL || strings.Contains(db, pgtest.Admin) {
			t.Errorf("%s: --tasks-db %q, want its role's URL %q", p.Subject, db, role.URL)
		}
		if got := launch.EnvValue(l.Env, "PGPASSWORD"); got != role.Password {
			t.Errorf("%s: PGPASSWORD %q, want its role's password", p.Subject, got)
		}
		for _, gone := range []string{"PGPASSFILE", "PGUSER", "BORIS_TASKS_DB", "BORIS_TASKS_DB_PASSWORD_FILE"} {
			if v := launch.EnvValue(l.Env, gone); v != "" {
				t.Errorf("%s: the core's environment holds the operator's %s=%s", p.Subject, gone, v)
			}
		}
		if launch.EnvValue(l.Env, "KEPT") != "1" {
			t.Errorf("%s: the core lost the operator's other variables", p.Subject)
		}
		if seen[role.Name] {
			t.Errorf("%s shares role %s with another principal", p.Subject, role.Name)
		}
		seen[role.Name] = true
	}
}
