package gateway

import (
	"net/http"

	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
)

// dashboardGateway is what the dashboard is given of h.
func (h *Handler) dashboardGateway() dashboard.Gateway {
	return dashboard.Gateway{
		Authenticate: h.opts.Authenticate,
		Principal:    func(r *http.Request) dashboard.Principal { return h.dashboardPrincipal(h.opts.Principal(r)) },
		Anonymous:    h.dashboardPrincipal(Principal{}),
		HostAllowed:  h.surface.hostAllowed,
		PublicURL:    h.opts.PublicURL,
		TasksDB:      h.opts.TasksDB,
		WriteTimeout: h.opts.WriteTimeout,
		Draining:     h.draining,
		Logger:       h.log,
	}
}

// dashboardPrincipal is p as the dashboard knows it: who it is, and its
// board.
func (h *Handler) dashboardPrincipal(p Principal) dashboard.Principal {
	board, _ := h.cores.boardOf(p, launch.CoreEnv(h.opts.Environ))
	return dashboard.Principal{Subject: p.Subject, SubjectKey: p.SubjectKey, Board: board}
}
