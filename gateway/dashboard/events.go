package dashboard

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mjkoo/boris/gateway/wire"
)

// Pacing of a dashboard stream.
const (
	// eventGap is the least time between two states sent on one stream:
	// a burst of tool calls makes one update, not hundreds.
	eventGap = 250 * time.Millisecond
	// loginRecheck is how often an open stream checks its login's token
	// again; a token no longer valid ends the stream with a logout event.
	loginRecheck = 30 * time.Second
)

// dashboardEvents streams the viewer's state (event "state", JSON) at
// every change, at most every eventGap, and every Refresh regardless.
func (d *Dashboard) dashboardEvents(w http.ResponseWriter, r *http.Request) {
	v, ok := d.dashViewer(r)
	if !ok {
		http.Error(w, "log in at /dashboard first", http.StatusUnauthorized)
		return
	}
	wire.UnboundReads(w) // no body: the stream may outlive the read deadline
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	refresh := d.opts.Refresh
	if refresh <= 0 {
		refresh = 2 * time.Second
	}
	pace := time.NewTicker(eventGap)
	defer pace.Stop()
	recheck := time.NewTicker(loginRecheck)
	defer recheck.Stop()
	var last time.Time
	pending := true
	changed := d.obs.changes()
	for {
		if pending || time.Since(last) >= refresh {
			changed = d.obs.changes() // before reading: no change is missed
			b, _ := json.Marshal(d.state(r.Context(), v))
			if wire.WriteParts(w, rc, d.gw.WriteTimeout, []byte("event: state\ndata: "), b, []byte("\n\n")) != nil {
				return
			}
			last, pending = time.Now(), false
		}
		select {
		case <-r.Context().Done():
			return
		case <-d.gw.Draining:
			return
		case <-changed:
			pending = true
			changed = nil // until the next send takes a new one
			<-pace.C      // at most one state every eventGap
		case <-pace.C:
		case <-recheck.C:
			if v, ok = d.dashViewer(r); !ok {
				_ = wire.WriteParts(w, rc, d.gw.WriteTimeout, []byte("event: logout\ndata: {}\n\n"))
				return
			}
		}
	}
}
