package dashboard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mjkoo/boris/auth"
	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/wire"
)

// The dashboard (GET /dashboard): a read-only page of the host's last
// hour (plots, to operators), the task boards as columns by status, the
// cores open and the tool calls in progress and done, kept live by a
// server-sent event stream. Its page, script and style are files of this
// binary (gateway/dashboard/web, embedded): no third-party asset, no build step.
//
// Authentication fit for a browser: the person pastes a bearer token the
// gateway accepts into a form; the gateway answers with an HttpOnly,
// SameSite=Strict session cookie (Secure when the gateway is reached over
// TLS) that names a login held in memory. The login keeps the token, and
// every request and, every loginRecheck, every open stream checks it
// again, so a token removed from the token file (SIGHUP) or an expired JWT
// ends its dashboard logins too. POSTs (log in, log out) are refused when
// they come from another origin (net/http's CrossOriginProtection: the
// Sec-Fetch-Site and Origin headers), and the cookie is never sent on
// cross-site requests. An operator (--dashboard-operator) sees every
// principal; anyone else sees only what belongs to their own subject.

//go:embed web
var webFS embed.FS

// pages are the dashboard's HTML templates: html/template escapes every
// value for where it lands.
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"seconds": fmtSeconds,
	"bytes":   fmtBytes,
	"since":   func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
	"join":    strings.Join,
}).ParseFS(webFS, "web/*.html"))

// contentSecurityPolicy allows the page's own script, style and event
// stream, and nothing else: no inline script or style, no frame, no form
// posting elsewhere, no base URL change.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Options configure /dashboard and /metrics.
type Options struct {
	// Operators are the identities, as Principal.SubjectKey values (kind
	// NUL subject), that see every principal on the dashboard and may read
	// /metrics. Without authentication the one (anonymous) principal is an
	// operator.
	Operators []string
	// MetricsOpen serves /metrics to anyone who can reach the gateway.
	MetricsOpen bool
	// MetricsToken, if set, is a bearer token that may read /metrics and
	// nothing else.
	MetricsToken string
	// LoginLifetime bounds a dashboard login; 0 means 12h.
	LoginLifetime time.Duration
	// Refresh is how often a dashboard stream sends the state when nothing
	// changed (boards written by the CLI, memory); 0 means 2s.
	Refresh time.Duration
}

// Dashboard serves /dashboard and /metrics. Create it with New.
type Dashboard struct {
	opts   Options
	gw     Gateway
	log    *slog.Logger
	obs    *Observer   // what it shows
	logins *loginStore // the dashboard's logins
}

// Gateway is what the dashboard is given of the gateway it shows; the
// sessions themselves it reads through its observer's Sessions.
type Gateway struct {
	// Authenticate, if non-nil, is the gateway's authentication of /mcp: a
	// token pasted into the login form is checked by it, exactly as a
	// request to /mcp bearing it would be. If nil, authentication is off
	// and every viewer is the one (anonymous) operator.
	Authenticate func(http.Handler) http.Handler
	// Principal returns the principal of a request Authenticate passed.
	Principal func(*http.Request) Principal
	// Anonymous is the one principal when authentication is off.
	Anonymous Principal
	// HostAllowed refuses DNS-rebinding Host names, as the gateway does on
	// /mcp.
	HostAllowed func(host string) bool
	// PublicURL is the gateway's canonical URL: an https one makes the
	// login cookie Secure.
	PublicURL string
	// TasksDB, if set, is the one task board every core uses (a team's).
	TasksDB string
	// TasksDBPasswordFile, if set, holds the password of a PostgreSQL
	// TasksDB's role.
	TasksDBPasswordFile string
	// BoardOptions, if non-nil, is how the dashboard reaches the
	// PostgreSQL board of the principal subjectKey: as that principal's
	// own role (--tasks-db-per-principal), so that what one viewer is
	// shown of a board PostgreSQL would show that board's principal.
	BoardOptions func(ctx context.Context, subjectKey string) (board.PGOptions, error)
	// Host names this gateway on its plots: its node id, else the
	// machine's host name.
	Host string
	// WriteTimeout bounds each piece of an event stream written.
	WriteTimeout time.Duration
	// Draining is closed when the gateway drains: event streams end.
	Draining <-chan struct{}
	// Logger receives the dashboard's warnings.
	Logger *slog.Logger
}

// Principal is a principal as the dashboard knows it.
type Principal struct {
	Subject    string // names the principal
	SubjectKey string // its identity's kind and subject: whose cores, calls and boards it sees
	Board      string // the file of its task board
}

// New returns the dashboard showing what obs records.
func New(opts Options, gw Gateway, obs *Observer) *Dashboard {
	return &Dashboard{opts: opts, gw: gw, log: gw.Logger, obs: obs, logins: newLoginStore(opts.LoginLifetime)}
}

// Routes adds /dashboard, its stream and files, and /metrics.
func (d *Dashboard) Routes(mux *http.ServeMux) {
	static, _ := fs.Sub(webFS, "web")
	cop := http.NewCrossOriginProtection()
	guard := func(f http.HandlerFunc) http.Handler { return d.dashboardGuard(f) }
	mux.Handle("GET /metrics", d.dashboardGuard(d.serveMetrics()))
	mux.Handle("GET /dashboard", guard(d.dashboardPage))
	mux.Handle("POST /dashboard/login", d.dashboardGuard(cop.Handler(http.HandlerFunc(d.login))))
	mux.Handle("POST /dashboard/logout", d.dashboardGuard(cop.Handler(http.HandlerFunc(d.logout))))
	mux.Handle("GET /dashboard/state", guard(d.dashboardState))
	mux.Handle("GET /dashboard/events", guard(d.dashboardEvents))
	mux.Handle("GET /dashboard/static/", d.dashboardGuard(http.StripPrefix("/dashboard/static/", http.FileServerFS(static))))
}

// dashboardGuard refuses DNS-rebinding Host names (see Gateway.HostAllowed) and
// sets the headers every dashboard answer carries.
func (d *Dashboard) dashboardGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !d.gw.HostAllowed(r.Host) {
			http.Error(w, wire.HostNotAllowed(r.Host), http.StatusForbidden)
			return
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// loginPage is the data of login.html.
type loginPage struct {
	Message string
}

// dashboardPage serves the dashboard to a logged-in viewer, the login
// form to anyone else.
func (d *Dashboard) dashboardPage(w http.ResponseWriter, r *http.Request) {
	v, ok := d.dashViewer(r)
	if !ok {
		d.render(w, http.StatusOK, "login.html", loginPage{})
		return
	}
	d.render(w, http.StatusOK, "dashboard.html", d.state(r.Context(), v))
}

func (d *Dashboard) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		d.log.Warn("dashboard page", "page", name, "err", err)
	}
}

// dashboardState answers the viewer's state as JSON.
func (d *Dashboard) dashboardState(w http.ResponseWriter, r *http.Request) {
	v, ok := d.dashViewer(r)
	if !ok {
		http.Error(w, "log in at /dashboard first", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d.state(r.Context(), v))
}

// login exchanges a bearer token for a session cookie.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token := strings.TrimSpace(r.PostFormValue("token"))
	wire.UnboundReads(w)
	if d.gw.Authenticate == nil {
		http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
		return
	}
	p, ok := d.verifyToken(r, token)
	if token == "" || !ok {
		d.render(w, http.StatusUnauthorized, "login.html", loginPage{Message: "That token was not accepted."})
		return
	}
	id, expires := d.logins.add(p.SubjectKey, token)
	http.SetCookie(w, d.cookie(r, id, expires))
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
}

// logout ends the login the cookie names.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(d.cookieName(r)); err == nil {
		d.logins.remove(c.Value)
	}
	http.SetCookie(w, d.cookie(r, "", time.Unix(1, 0)))
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
}

// secure reports whether the browser reaches the gateway over TLS:
// directly, or (--public-url https://...) through a proxy.
func (d *Dashboard) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(strings.ToLower(d.gw.PublicURL), "https://")
}

// cookieName is the login cookie's name; "__Secure-" makes browsers
// refuse it unless it is Secure and came over TLS.
func (d *Dashboard) cookieName(r *http.Request) string {
	if d.secure(r) {
		return "__Secure-boris_dashboard"
	}
	return "boris_dashboard"
}

func (d *Dashboard) cookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: d.cookieName(r), Value: value, Path: "/dashboard", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: d.secure(r),
	}
	if value == "" {
		c.MaxAge = -1
	}
	return c
}

// dashViewer is who the request's login cookie names, checked against the
// token it was made with: false without a cookie, or when the login or
// its token is no longer valid. Without authentication everyone is the
// one anonymous operator.
func (d *Dashboard) dashViewer(r *http.Request) (viewer, bool) {
	if d.gw.Authenticate == nil {
		return viewer{p: d.gw.Anonymous, operator: true}, true
	}
	c, err := r.Cookie(d.cookieName(r))
	if err != nil {
		return viewer{}, false
	}
	token, ok := d.logins.token(c.Value)
	if !ok {
		return viewer{}, false
	}
	p, ok := d.verifyToken(r, token)
	if !ok {
		d.logins.remove(c.Value)
		return viewer{}, false
	}
	return viewer{p: p, operator: d.isOperator(p)}, true
}

// verifyToken runs token through the gateway's authentication, exactly as
// a request to /mcp bearing it would be, and returns its principal.
func (d *Dashboard) verifyToken(r *http.Request, token string) (Principal, bool) {
	if d.gw.Authenticate == nil {
		return d.gw.Anonymous, true
	}
	var p Principal
	ok := false
	req := r.Clone(r.Context())
	req.Header = http.Header{"Authorization": {"Bearer " + token}}
	req.Body, req.ContentLength = http.NoBody, 0
	d.gw.Authenticate(http.HandlerFunc(func(_ http.ResponseWriter, ar *http.Request) {
		p, ok = d.gw.Principal(ar), true
	})).ServeHTTP(discard{}, req)
	return p, ok
}

// isOperator reports whether p sees every principal on the dashboard.
func (d *Dashboard) isOperator(p Principal) bool {
	if d.gw.Authenticate == nil {
		return true
	}
	for _, o := range d.opts.Operators {
		if p.SubjectKey != "" && o == p.SubjectKey {
			return true
		}
	}
	return false
}

// bearerToken is the token of an "Authorization: Bearer TOKEN" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// OperatorKeys maps --dashboard-operator entries onto subject keys: NAME
// is the static token named NAME, jwt:SUB the JWT whose sub is SUB. A JWT
// subject never matches a static token's name, so no identity provider
// can mint an operator by naming a user after a token.
func OperatorKeys(entries []string) []string {
	var out []string
	for _, e := range entries {
		if sub, ok := strings.CutPrefix(e, "jwt:"); ok {
			out = append(out, auth.KindJWT+"\x00"+sub)
			continue
		}
		out = append(out, auth.KindToken+"\x00"+e)
	}
	return out
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

func fmtSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

func fmtBytes(b int64) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// serveMetrics serves the exposition to whoever metricsAllowed admits.
func (d *Dashboard) serveMetrics() http.Handler {
	prom := d.obs.metrics.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !d.metricsAllowed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="boris"`)
			http.Error(w, "a dashboard operator's bearer token (or the metrics token) is required", http.StatusUnauthorized)
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// metricsAllowed admits a request to /metrics: anyone with
// Options.MetricsOpen or without authentication, else the
// metrics token or a dashboard operator's bearer token.
func (d *Dashboard) metricsAllowed(r *http.Request) bool {
	opts := d.opts
	if opts.MetricsOpen || d.gw.Authenticate == nil {
		return true
	}
	token, ok := bearerToken(r)
	if !ok {
		return false
	}
	if opts.MetricsToken != "" {
		want, got := sha256.Sum256([]byte(opts.MetricsToken)), sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(want[:], got[:]) == 1 {
			return true
		}
	}
	p, ok := d.verifyToken(r, token)
	return ok && d.isOperator(p)
}
