// Package pgtest provides a real PostgreSQL server for tests and
// benchmarks: Debian's binaries (installed with apt-get when missing),
// a cluster made by initdb in a temporary directory, and a postmaster
// listening on a Unix socket there and nowhere else. As root, the server
// runs as the postgres user (or nobody), since PostgreSQL refuses root.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUnavailable is wrapped when PostgreSQL is not installed and cannot
// be: the caller skips, saying why.
var ErrUnavailable = errors.New("PostgreSQL is unavailable")

// Admin is the superuser role initdb creates.
const Admin = "boris_admin"

// Server is a running PostgreSQL server of a test's own.
type Server struct {
	// Dir holds the cluster (Dir/data), the socket and the password file.
	Dir string
	cmd *exec.Cmd
	ran chan struct{} // closed when the postmaster has exited
}

// Start installs PostgreSQL if need be, makes a cluster and starts its
// server on a Unix socket, ready for connections when it returns.
func Start(ctx context.Context) (*Server, error) {
	bin, err := binDir(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "boris-pg-")
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL: %w", err)
	}
	s := &Server{Dir: dir, ran: make(chan struct{})}
	if err := s.start(ctx, bin); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// start makes the cluster and starts the postmaster.
func (s *Server) start(ctx context.Context, bin string) error {
	if err := os.WriteFile(s.PasswordFile(), []byte(adminPassword+"\n"), 0o600); err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	if err := s.handOver(); err != nil {
		return err
	}
	initdb := s.command(ctx, filepath.Join(bin, "initdb"), "-D", s.dataDir(), "-U", Admin, "--pwfile", s.PasswordFile(),
		"--auth-local=scram-sha-256", "--auth-host=reject", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	s.cmd = s.command(context.Background(), filepath.Join(bin, "postgres"), "-D", s.dataDir(), "-k", s.Dir,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "max_connections=200", "-c", "log_min_messages=warning")
	s.cmd.Stdout, s.cmd.Stderr = nil, s.logFile()
	s.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	go func() { s.cmd.Wait(); close(s.ran) }()
	return s.waitReady(ctx)
}

// adminPassword is the superuser's password: the server takes no
// connection but from the socket in a directory only its user and root
// may enter.
const adminPassword = "boris-test-admin"

// PasswordFile holds the superuser's password, for PGOptions.PasswordFile.
func (s *Server) PasswordFile() string { return filepath.Join(s.Dir, "admin.password") }

// URL is the superuser's URL for database db ("" for the default), its
// password left to PasswordFile.
func (s *Server) URL(db string) string { return s.RoleURL(Admin, db) }

// RoleURL is role's URL for database db through the socket.
func (s *Server) RoleURL(role, db string) string {
	if db == "" {
		db = "postgres"
	}
	return "postgres://" + role + "@/" + db + "?host=" + s.Dir + "&sslmode=disable"
}

// Connect is a superuser connection.
func (s *Server) Connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(s.URL(""))
	if err != nil {
		return nil, err
	}
	cfg.Password = adminPassword
	return pgx.ConnectConfig(ctx, cfg)
}

// Stop ends the server (a fast shutdown, then SIGKILL) and removes its
// directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.ran:
		case <-time.After(15 * time.Second):
			s.cmd.Process.Kill()
			<-s.ran
		}
	}
	os.RemoveAll(s.Dir)
}

// waitReady waits until the superuser can connect, the postmaster exits
// or 60 s pass.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := s.Connect(ctx)
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-s.ran:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "postgres.log"))
			return fmt.Errorf("postgres exited at start: %s", log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 60 s: %w", err)
		}
	}
}

// dataDir is the cluster's directory.
func (s *Server) dataDir() string { return filepath.Join(s.Dir, "data") }

// logFile is the postmaster's log, kept for a failed start's message.
func (s *Server) logFile() *os.File {
	f, err := os.Create(filepath.Join(s.Dir, "postgres.log"))
	if err != nil {
		return nil
	}
	s.chown(f.Name())
	return f
}

// command runs a PostgreSQL program, as the server's user when we are
// root.
func (s *Server) command(ctx context.Context, prog string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if uid, gid, ok := serverUser(); ok {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: false, Groups: []uint32{}}
		cmd.Env = append(os.Environ(), "HOME="+s.Dir)
	}
	return cmd
}

// handOver gives the directory and the password file to the server's
// user when we are root.
func (s *Server) handOver() error {
	for _, p := range []string{s.Dir, s.PasswordFile()} {
		if err := s.chown(p); err != nil {
			return fmt.Errorf("start PostgreSQL: %w", err)
		}
	}
	return nil
}

// chown gives p to the server's user when we are root.
func (s *Server) chown(p string) error {
	uid, gid, ok := serverUser()
	if !ok {
		return nil
	}
	return os.Chown(p, int(uid), int(gid))
}

// serverUser is the user PostgreSQL runs as when we are root: postgres,
// which Debian's package makes, else nobody. ok is false when we are not
// root (the server runs as we do).
func serverUser() (uid, gid uint32, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		a, _ := strconv.Atoi(u.Uid)
		b, _ := strconv.Atoi(u.Gid)
		return uint32(a), uint32(b), true
	}
	return 65534, 65534, true
}

// binDir is the newest /usr/lib/postgresql/N/bin holding initdb and
// postgres, installing Debian's postgresql package first if none does.
func binDir(ctx context.Context) (string, error) {
	if dir := findBin(); dir != "" {
		return dir, nil
	}
	apt, err := exec.LookPath("apt-get")
	if err != nil {
		return "", fmt.Errorf("%w: initdb and postgres are not under /usr/lib/postgresql/*/bin and apt-get is not available to install Debian's postgresql package", ErrUnavailable)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("%w: initdb and postgres are not under /usr/lib/postgresql/*/bin, and installing Debian's postgresql package needs root", ErrUnavailable)
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	install := func() ([]byte, error) {
		cmd := exec.CommandContext(ctx, apt, "install", "-y", "--no-install-recommends", "postgresql")
		cmd.Env = env
		return cmd.CombinedOutput()
	}
	if _, err := install(); err != nil {
		update := exec.CommandContext(ctx, apt, "update")
		update.Env = env
		update.Run()
		if out, err := install(); err != nil {
			return "", fmt.Errorf("%w: apt-get install postgresql failed: %v\n%s", ErrUnavailable, err, tail(out))
		}
	}
	if dir := findBin(); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("%w: apt-get installed postgresql, but no /usr/lib/postgresql/*/bin holds initdb and postgres", ErrUnavailable)
}

// findBin is the newest /usr/lib/postgresql/N/bin with initdb and
// postgres, or "".
func findBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	return ""
}

// version is N of /usr/lib/postgresql/N/bin.
func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// isExec reports whether p is an executable file.
func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// tail is the last lines of out.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

// Lazy starts one server for a package's tests on first use; TestMain
// stops it.
type Lazy struct {
	once sync.Once
	srv  *Server
	err  error
}

// Get is the package's server, started now if need be. It skips t with
// the reason where PostgreSQL cannot be installed, and fails t where it
// is installed and does not start.
func (l *Lazy) Get(t testing.TB) *Server {
	t.Helper()
	l.once.Do(func() { l.srv, l.err = Start(context.Background()) })
	if errors.Is(l.err, ErrUnavailable) {
		t.Skipf("PostgreSQL tests skipped: %v", l.err)
	}
	if l.err != nil {
		t.Fatalf("start PostgreSQL: %v", l.err)
	}
	return l.srv
}

// Stop stops the server if one was started.
func (l *Lazy) Stop() {
	if l.srv != nil {
		l.srv.Stop()
	}
}

// ForTest starts a server for t alone, stopped when t ends; like Lazy.Get
// it skips t where PostgreSQL cannot be installed.
func ForTest(t testing.TB) *Server {
	t.Helper()
	srv, err := Start(context.Background())
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// Role makes a login role owning the schema of its name (see
// board.ProvisionRole, which provision is) and writes its password to a
// file in dir; it returns the role's URL and the file.
func (s *Server) Role(ctx context.Context, name, dir string, provision func(context.Context, *pgx.Conn, string) (string, error)) (url, passwordFile string, err error) {
	admin, err := s.Connect(ctx)
	if err != nil {
		return "", "", err
	}
	defer admin.Close(ctx)
	pw, err := provision(ctx, admin, name)
	if err != nil {
		return "", "", err
	}
	passwordFile = filepath.Join(dir, name+".password")
	if err := os.WriteFile(passwordFile, []byte(pw+"\n"), 0o600); err != nil {
		return "", "", err
	}
	return s.RoleURL(name, ""), passwordFile, nil
}

// Refused runs q on conn as who and fails t unless PostgreSQL refuses it:
// insufficient_privilege, or no such table where the search skips a
// schema the role may not use.
func Refused(t testing.TB, conn *pgx.Conn, who, q string) {
	t.Helper()
	rows, err := conn.Query(context.Background(), q)
	var got []string
	if err == nil {
		for rows.Next() {
			got = append(got, fmt.Sprint(rows.RawValues()))
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || (pe.Code != "42501" && pe.Code != "42P01") {
		t.Errorf("%s ran %q: rows %v, err %v; want it refused (42501 or 42P01)", who, q, got, err)
	}
}
