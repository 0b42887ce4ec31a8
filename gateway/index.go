package gateway

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/mjkoo/boris/gateway/wire"
	"github.com/mjkoo/boris/internal/version"
)

// index is what GET / answers: where the MCP endpoint, the dashboard and
// the health check are, so that someone who opens the gateway's address
// in a browser, or curls it, learns what to do next instead of meeting a
// bare 404. It holds nothing a client could not read from the
// documentation, and needs no credentials.
type index struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	MCP       string `json:"mcp"`
	Dashboard string `json:"dashboard"`
	Health    string `json:"health"`
	Hint      string `json:"hint"`
}

// indexPage is index for a browser.
var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<meta charset="utf-8"><title>boris-gateway</title>
<h1>boris-gateway {{.Version}}</h1>
<p>This is an MCP server. Point your MCP client (Claude Code, Cursor, ...) at <code>{{.MCP}}</code> on this host.</p>
<ul><li><a href="{{.Dashboard}}">Dashboard</a></li><li><a href="{{.Health}}">Health</a></li></ul>
<p>{{.Hint}}</p>
`))

// serveIndex answers GET / with index: HTML for browsers, JSON otherwise.
func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	if !h.surface.hostAllowed(r.Host) {
		http.Error(w, wire.HostNotAllowed(r.Host), http.StatusForbidden)
		return
	}
	ix := index{
		Name: "boris-gateway", Version: version.Version, MCP: "/mcp", Dashboard: "/dashboard", Health: "/healthz",
		Hint: "MCP clients connect to /mcp with Streamable HTTP; the dashboard shows sessions and calls.",
	}
	if h.opts.PublicURL != "" {
		ix.MCP = h.opts.PublicURL
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		_ = indexPage.Execute(w, ix)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ix)
}
