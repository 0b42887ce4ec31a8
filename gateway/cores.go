package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"

	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/gateway/sessions"
	"github.com/mjkoo/boris/internal/egress"
)

// starter starts principals' cores and opens their sessions: what a
// principal's core is started with (launchFor, in principal.go, and its
// build caches, in caches.go), the process, its cgroup and its door to the
// egress proxy, and the warm pool's cores started ahead.
type starter struct {
	opts    Options
	log     *slog.Logger
	table   *sessions.Table
	lim     sessions.Limits
	spawner *launch.Spawner
	warm    *launch.WarmPool    // cores started ahead; nil without WarmCores
	obs     *dashboard.Observer // told of every core started and principal seen
}

// newStarter returns the starter of a Handler's cores, whose sessions go in
// table.
func newStarter(opts Options, table *sessions.Table, obs *dashboard.Observer) *starter {
	h := &starter{opts: opts, log: opts.Logger, table: table, spawner: launch.NewSpawner(opts.Reaper), obs: obs}
	h.warm = launch.NewWarmPool(opts.WarmCores, table.Grace, h.startWarm)
	h.lim = sessions.Limits{
		MaxMessage: int64(opts.MaxMessage), Buffered: int64(opts.MaxBuffered), Total: sessions.NewBudget(int64(opts.MaxBufferedTotal)),
		MaxInFlight:   opts.MaxInFlight,
		Replay:        sessions.ReplayLimits{Bytes: int64(opts.ReplayBuffer), Window: opts.ReplayWindow, Evicted: obs.ReplayEvicted},
		ShedElsewhere: table.ShedReplay,
	}
	return h
}

// startSession spawns a core for p and opens its session: a principal's
// core (for its 2026-07-28 requests) if principal.
func (h *starter) startSession(p Principal, principal bool) (_ *sessions.Session, err error) {
	defer func() { h.obs.CoreStarted(err) }()
	l, err := h.launchFor(p)
	if err != nil {
		return nil, err
	}
	var id string
	var core *launch.Core
	if w := h.warm.Take(launch.WarmKey(l)); w != nil {
		id, core = w.ID, w.Core
	} else if id, core, err = h.spawnFor(l); err != nil {
		return nil, err
	}
	h.warm.Refill(l) // the principal's next core
	s := sessions.NewSession(id, p.Subject, core, h.lim, h.log, principal)
	h.table.Add(s)
	go s.Route(h.table.End)
	return s, nil
}

// spawnFor starts a core of l for a session it names, in a cgroup of its
// own when sessions have them, with a door of its own to the egress
// proxy when there is one.
//
// The cgroup is not named after the session: /sys/fs/cgroup is readable
// wherever commands see the host's (--sandbox-net host), and a session id
// is the credential that reaches the session (Mcp-Session-Id).
func (h *starter) spawnFor(l launch.Spec) (string, *launch.Core, error) {
	id := h.newSessionID()
	var err error
	if h.opts.Cgroups != nil {
		if l.Group, err = h.opts.Cgroups.New(groupName()); err != nil {
			return "", nil, err
		}
	}
	door, err := h.egressDoor(&l)
	if err != nil {
		return "", nil, err
	}
	core, err := launch.Spawn(h.spawner, h.opts.Core, l, h.log)
	if err != nil {
		door.Close()
		if l.Group != nil {
			_ = l.Group.Kill()
		}
		return "", nil, err
	}
	if door != nil {
		go func() {
			<-core.Exited
			door.Close() // and every tunnel through it
		}()
	}
	return id, core, nil
}

// egressDoor opens the door of a core of l to the egress proxy, if there
// is one, and adds it to l's arguments.
func (h *starter) egressDoor(l *launch.Spec) (*egress.Door, error) {
	if h.opts.Egress == nil {
		return nil, nil
	}
	door, err := h.opts.Egress.Open(l.Owner)
	if err != nil {
		return nil, err
	}
	l.Args = append(slices.Clip(l.Args), "--egress-socket", door.Path())
	return door, nil
}

// startWarm starts a core of l for the warm pool.
func (h *starter) startWarm(l launch.Spec) (*launch.WarmCore, error) {
	id, core, err := h.spawnFor(l)
	if err != nil {
		h.log.Warn("could not start a core ahead of its session", "err", err)
		return nil, err
	}
	return &launch.WarmCore{Key: launch.WarmKey(l), ID: id, Core: core}, nil
}

// newSessionID returns 128 random bits in hex (visible ASCII,
// unguessable), after the node's name and a dot when there is one.
func (h *starter) newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	if h.opts.NodeID != "" {
		return h.opts.NodeID + "." + hex.EncodeToString(b[:])
	}
	return hex.EncodeToString(b[:])
}

// groupName returns a session cgroup's name: 96 random bits, tied to
// nothing a client sends or receives.
func groupName() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}
