package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/mjkoo/boris/auth"
	"github.com/mjkoo/boris/gateway/wire"
)

// The dashboard (GET /dashboard): a read-only page of the cores open, the
// tool calls in progress and done, and the task boards, kept live by a
// server-sent event stream. Its page, script and style are files of this
// binary (gateway/web, embedded): no third-party asset, no build step.
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

// DashboardOptions configure /dashboard and /metrics.
type DashboardOptions struct {
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

// dashboardRoutes adds /dashboard, its stream and files, and /metrics.
func (h *Handler) dashboardRoutes(mux *http.ServeMux) {
	h.logins = newLoginStore(h.opts.Dashboard.LoginLifetime)
	static, _ := fs.Sub(webFS, "web")
	cop := http.NewCrossOriginProtection()
	guard := func(f http.HandlerFunc) http.Handler { return h.dashboardGuard(f) }
	mux.Handle("GET /metrics", h.dashboardGuard(h.serveMetrics()))
	mux.Handle("GET /dashboard", guard(h.dashboardPage))
	mux.Handle("POST /dashboard/login", h.dashboardGuard(cop.Handler(http.HandlerFunc(h.login))))
	mux.Handle("POST /dashboard/logout", h.dashboardGuard(cop.Handler(http.HandlerFunc(h.logout))))
	mux.Handle("GET /dashboard/state", guard(h.dashboardState))
	mux.Handle("GET /dashboard/events", guard(h.dashboardEvents))
	mux.Handle("GET /dashboard/static/", h.dashboardGuard(http.StripPrefix("/dashboard/static/", http.FileServerFS(static))))
}

// dashboardGuard refuses DNS-rebinding Host names (see hostAllowed) and
// sets the headers every dashboard answer carries.
func (h *Handler) dashboardGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hostAllowed(r.Host) {
			http.Error(w, "host not allowed: "+r.Host, http.StatusForbidden)
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
func (h *Handler) dashboardPage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.dashViewer(r)
	if !ok {
		h.render(w, http.StatusOK, "login.html", loginPage{})
		return
	}
	h.render(w, http.StatusOK, "dashboard.html", h.state(r.Context(), v))
}

func (h *Handler) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		h.log.Warn("dashboard page", "page", name, "err", err)
	}
}

// dashboardState answers the viewer's state as JSON.
func (h *Handler) dashboardState(w http.ResponseWriter, r *http.Request) {
	v, ok := h.dashViewer(r)
	if !ok {
		http.Error(w, "log in at /dashboard first", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(h.state(r.Context(), v))
}

// login exchanges a bearer token for a session cookie.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	token := strings.TrimSpace(r.PostFormValue("token"))
	wire.UnboundReads(w)
	if h.opts.Authenticate == nil {
		http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
		return
	}
	p, ok := h.verifyToken(r, token)
	if token == "" || !ok {
		h.render(w, http.StatusUnauthorized, "login.html", loginPage{Message: "That token was not accepted."})
		return
	}
	id, expires := h.logins.add(p.SubjectKey, token)
	http.SetCookie(w, h.cookie(r, id, expires))
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
}

// logout ends the login the cookie names.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(h.cookieName(r)); err == nil {
		h.logins.remove(c.Value)
	}
	http.SetCookie(w, h.cookie(r, "", time.Unix(1, 0)))
	http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
}

// secure reports whether the browser reaches the gateway over TLS:
// directly, or (--public-url https://...) through a proxy.
func (h *Handler) secure(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(strings.ToLower(h.opts.PublicURL), "https://")
}

// cookieName is the login cookie's name; "__Secure-" makes browsers
// refuse it unless it is Secure and came over TLS.
func (h *Handler) cookieName(r *http.Request) string {
	if h.secure(r) {
		return "__Secure-boris_dashboard"
	}
	return "boris_dashboard"
}

func (h *Handler) cookie(r *http.Request, value string, expires time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: h.cookieName(r), Value: value, Path: "/dashboard", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.secure(r),
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
func (h *Handler) dashViewer(r *http.Request) (viewer, bool) {
	if h.opts.Authenticate == nil {
		return viewer{operator: true}, true
	}
	c, err := r.Cookie(h.cookieName(r))
	if err != nil {
		return viewer{}, false
	}
	token, ok := h.logins.token(c.Value)
	if !ok {
		return viewer{}, false
	}
	p, ok := h.verifyToken(r, token)
	if !ok {
		h.logins.remove(c.Value)
		return viewer{}, false
	}
	return viewer{p: p, operator: h.isOperator(p)}, true
}

// verifyToken runs token through the gateway's authentication, exactly as
// a request to /mcp bearing it would be, and returns its principal.
func (h *Handler) verifyToken(r *http.Request, token string) (Principal, bool) {
	if h.opts.Authenticate == nil {
		return Principal{}, true
	}
	var p Principal
	ok := false
	req := r.Clone(r.Context())
	req.Header = http.Header{"Authorization": {"Bearer " + token}}
	req.Body, req.ContentLength = http.NoBody, 0
	h.opts.Authenticate(http.HandlerFunc(func(_ http.ResponseWriter, ar *http.Request) {
		p, ok = h.opts.Principal(ar), true
	})).ServeHTTP(discard{}, req)
	return p, ok
}

// isOperator reports whether p sees every principal on the dashboard.
func (h *Handler) isOperator(p Principal) bool {
	if h.opts.Authenticate == nil {
		return true
	}
	for _, o := range h.opts.Dashboard.Operators {
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

// operatorKeys maps --dashboard-operator entries onto subject keys: NAME
// is the static token named NAME, jwt:SUB the JWT whose sub is SUB. A JWT
// subject never matches a static token's name, so no identity provider
// can mint an operator by naming a user after a token.
func operatorKeys(entries []string) []string {
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
func (h *Handler) serveMetrics() http.Handler {
	prom := h.obs.metrics.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !h.metricsAllowed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="boris"`)
			http.Error(w, "a dashboard operator's bearer token (or the metrics token) is required", http.StatusUnauthorized)
			return
		}
		prom.ServeHTTP(w, r)
	})
}

// metricsAllowed admits a request to /metrics: anyone with
// DashboardOptions.MetricsOpen or without authentication, else the
// metrics token or a dashboard operator's bearer token.
func (h *Handler) metricsAllowed(r *http.Request) bool {
	d := h.opts.Dashboard
	if d.MetricsOpen || h.opts.Authenticate == nil {
		return true
	}
	token, ok := bearerToken(r)
	if !ok {
		return false
	}
	if d.MetricsToken != "" {
		want, got := sha256.Sum256([]byte(d.MetricsToken)), sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(want[:], got[:]) == 1 {
			return true
		}
	}
	p, ok := h.verifyToken(r, token)
	return ok && h.isOperator(p)
}
