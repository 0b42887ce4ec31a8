package board

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// ErrScheme is wrapped when --tasks-db looks like a URL of a database
// Boris does not speak (mysql://, http://): such a value is refused, never
// taken as a file's path.
var ErrScheme = errors.New("unknown task database scheme")

// ErrPasswordInURL is wrapped when a PostgreSQL URL carries a password: a
// command line is visible to every user of the host (ps, /proc) and ends
// up in logs, so passwords come from a file or the environment instead.
var ErrPasswordInURL = errors.New("password in the task database URL")

// schemeRE matches what a value that looks like a URL starts with: any
// text before "://" (mysql://, foo:bar://), or one of PostgreSQL's two
// schemes followed by ":" alone (a mistyped URL).
var schemeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([^/]*)://|^(?i)(postgres|postgresql):`)
})

// schemeOf is schemeRE's match of target; nil for a value without a colon,
// such as every path that is not a URL's, without compiling it (every
// core checks its --tasks-db at start).
func schemeOf(target string) []string {
	if !strings.Contains(target, ":") {
		return nil
	}
	return schemeRE().FindStringSubmatch(target)
}

// IsPostgres reports whether target (a --tasks-db value) names a
// PostgreSQL database: postgres://... or postgresql://...
func IsPostgres(target string) bool {
	lower := strings.ToLower(target)
	return strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://")
}

// CheckTarget checks a --tasks-db value before anything is made of it: a
// PostgreSQL URL without a password, or a file's path. Anything that looks
// like a URL of another scheme is ErrScheme, so that "mysql://host/db" is
// never a directory named "mysql:" made in the working directory.
func CheckTarget(target string) error {
	if IsPostgres(target) {
		return checkPostgresURL(target)
	}
	if m := schemeOf(target); m != nil {
		scheme := m[1] + m[2]
		return fmt.Errorf("%w %q in %s: want postgres://... or postgresql://... for PostgreSQL, or a file's path for SQLite (./%s if that really is a file's name)",
			ErrScheme, scheme, Redact(target), Redact(target))
	}
	return nil
}

// checkPostgresURL refuses a URL that cannot be parsed or that carries a
// password (user:password@ or password=).
func checkPostgresURL(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("task database URL %s: cannot be parsed (check its escaping)", Redact(target))
	}
	_, inUser := u.User.Password()
	if inUser || u.Query().Has("password") {
		return fmt.Errorf("%w %s: give the password in a file (--tasks-db-password-file, passfile=, PGPASSFILE, ~/.pgpass) or in PGPASSWORD, never on a command line",
			ErrPasswordInURL, Redact(target))
	}
	return nil
}

// Redact is target as messages and logs may show it: a URL without its
// password (user:password@ or password=); a file's path unchanged. A
// value that cannot be parsed as a URL is shown as its scheme alone.
func Redact(target string) string {
	m := schemeOf(target)
	if m == nil {
		return target
	}
	u, err := url.Parse(target)
	if err != nil {
		return m[0] + "…"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "REDACTED")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "REDACTED")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
