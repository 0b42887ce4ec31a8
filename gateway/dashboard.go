package gateway

import (
	"context"
	"net/http"
	"os"
	"strings"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
)

// dashboardGateway is what the dashboard is given of h.
func (h *Handler) dashboardGateway() dashboard.Gateway {
	return dashboard.Gateway{
		Authenticate:        h.opts.Authenticate,
		Principal:           func(r *http.Request) dashboard.Principal { return h.dashboardPrincipal(h.opts.Principal(r)) },
		Anonymous:           h.dashboardPrincipal(Principal{}),
		HostAllowed:         h.surface.hostAllowed,
		PublicURL:           h.opts.PublicURL,
		TasksDB:             h.opts.TasksDB,
		TasksDBPasswordFile: h.opts.TasksDBPasswordFile,
		BoardOptions:        h.boardOptions(),
		Host:                h.hostName(),
		WriteTimeout:        h.opts.WriteTimeout,
		Draining:            h.draining,
		Logger:              h.log,
	}
}

// hostName names this gateway on the dashboard's plots: its node id, else
// the machine's host name.
func (h *Handler) hostName() string {
	if h.opts.NodeID != "" {
		return h.opts.NodeID
	}
	name, err := os.Hostname()
	if err != nil {
		return "this host"
	}
	return name
}

// dashboardPrincipal is p as the dashboard knows it: who it is, and its
// board.
func (h *Handler) dashboardPrincipal(p Principal) dashboard.Principal {
	board, _ := h.cores.boardOf(p, launch.CoreEnv(h.opts.Environ))
	return dashboard.Principal{Subject: p.Subject, SubjectKey: p.SubjectKey, Board: board}
}

// boardOptions is how the dashboard reaches a principal's own PostgreSQL
// board (Options.Roles): as its role, provisioned if need be; nil when
// principals have no roles.
func (h *Handler) boardOptions() func(context.Context, string) (board.PGOptions, error) {
	if h.opts.Roles == nil {
		return nil
	}
	return func(ctx context.Context, subjectKey string) (board.PGOptions, error) {
		role, err := h.opts.Roles.Role(ctx, subjectKey, strings.Replace(subjectKey, "\x00", ":", 1))
		if err != nil {
			return board.PGOptions{}, err
		}
		return board.PGOptions{Password: role.Password}, nil
	}
}
