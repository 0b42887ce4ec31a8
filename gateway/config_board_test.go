package gateway

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjkoo/boris/internal/flagenv"
)

// TestConfigTasksDB: the gateway's --tasks-db takes a file or a
// PostgreSQL URL as it is; a URL of another scheme or holding a password
// is a usage error that does not show the password, and
// --tasks-db-password-file goes only with a PostgreSQL board.
func TestConfigTasksDB(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "db.password")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const url = "postgres://team@db.example/boris?sslmode=verify-full"
	tests := []struct {
		name       string
		args       []string
		wantShared string
		wantPW     string
		wantErr    string
	}{
		{"postgres", []string{"--tasks-db", url, "--tasks-db-password-file", pw}, url, pw, ""},
		{"postgresql scheme", []string{"--tasks-db", "postgresql://team@/boris?host=/run/postgresql"}, "postgresql://team@/boris?host=/run/postgresql", "", ""},
		{"mysql", []string{"--tasks-db", "mysql://root@db/boris"}, "", "", `unknown task database scheme "mysql"`},
		{"password in the URL", []string{"--tasks-db", "postgres://team:hunter2@db/boris"}, "", "", "password in the task database URL"},
		{"password file for a file", []string{"--tasks-db", "/srv/team.db", "--tasks-db-password-file", pw}, "/srv/team.db", "", "a SQLite board has no password"},
		{"missing password file", []string{"--tasks-db", url, "--tasks-db-password-file", pw + ".absent"}, url, "", "invalid --tasks-db-password-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig(append([]string{"--listen", "127.0.0.1:0", "--auth", "none"}, tt.args...), nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := cfg.sharedTasksDB()
			var pwfile string
			if err == nil {
				pwfile, err = cfg.tasksDBPasswordFile()
			}
			if tt.wantErr != "" {
				var ue *flagenv.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("err = %v, want a usage error saying %q without the password", err, tt.wantErr)
				}
				return
			}
			if err != nil || shared != tt.wantShared || pwfile != tt.wantPW {
				t.Errorf("got %q %q %v, want %q %q", shared, pwfile, err, tt.wantShared, tt.wantPW)
			}
		})
	}
}

// TestConfigTasksDBPerPrincipal: --tasks-db-per-principal is refused,
// saying why, where the database could not keep principals apart: no
// PostgreSQL --tasks-db, one principal, or cores given a board of the
// operator's choosing. Nothing is connected to first.
func TestConfigTasksDBPerPrincipal(t *testing.T) {
	const url = "postgres://operator@db.invalid/boris?sslmode=disable&connect_timeout=1"
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"without --tasks-db", []string{"--token", "alice=alice-token-0123456789"}, "needs a postgres:// --tasks-db"},
		{"SQLite", []string{"--token", "alice=alice-token-0123456789", "--tasks-db", "/srv/team.db"}, "needs a postgres:// --tasks-db"},
		{"no authentication", []string{"--auth", "none", "--tasks-db", url}, "needs authentication"},
		{"core --tasks-db", []string{"--token", "alice=alice-token-0123456789", "--tasks-db", url, "--", "--tasks-db", "/tmp/x.db"}, "drop --tasks-db"},
		{"core password file", []string{"--token", "alice=alice-token-0123456789", "--tasks-db", url, "--", "--tasks-db-password-file", "/tmp/pw"}, "drop --tasks-db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig(append([]string{"--listen", "127.0.0.1:0", "--tasks-db-per-principal"}, tt.args...), nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := cfg.sharedTasksDB()
			if err != nil {
				t.Fatal(err)
			}
			r, err := cfg.principalRoles(context.Background(), shared, "")
			var ue *flagenv.UsageError
			if r != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %v, %v; want a usage error saying %q", r, err, tt.wantErr)
			}
		})
	}
}
