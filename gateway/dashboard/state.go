package dashboard

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/core/board"
	"github.com/mjkoo/boris/gateway/metrics"
)

// boardShown is how many tasks of a board the dashboard lists.
const boardShown = 200

// State is what one viewer of the dashboard may see, as the page and
// its event stream carry it. Every string in it may come from a client or
// an agent: the page escapes them (html/template) and the script only ever
// sets them as text.
type State struct {
	Now    time.Time   `json:"now"`
	Viewer dashViewer  `json:"viewer"`
	Host   *dashHost   `json:"host,omitempty"` // operators only, as /metrics
	Cores  []dashCore  `json:"cores"`
	Calls  []dashCall  `json:"calls"`
	Boards []dashBoard `json:"boards"`
	// Statuses are a board's columns, in the order a person reads them.
	Statuses []dashStatus `json:"statuses"`
}

// dashStatus is a status and its column's title.
type dashStatus struct {
	Status string `json:"status"`
	Title  string `json:"title"`
}

// statuses are the board's statuses with their titles ("in_progress": "In progress").
func statuses() []dashStatus {
	out := make([]dashStatus, len(board.Statuses))
	for i, st := range board.Statuses {
		title := strings.ReplaceAll(st, "_", " ")
		out[i] = dashStatus{Status: st, Title: strings.ToUpper(title[:1]) + title[1:]}
	}
	return out
}

// SharedBoard reports whether the board shown is a team's, shared by every
// gateway given the same --tasks-db.
func (s State) SharedBoard() bool {
	return slices.ContainsFunc(s.Boards, func(b dashBoard) bool { return b.Shared })
}

// dashHost is this gateway's plots: its own sessions and calls (to an
// operator all of them, to a principal its own), whatever board it shows.
type dashHost struct {
	Name string `json:"name"` // --node-id, else the host name
	// Own plots only the viewer's own sessions and calls on this host: a
	// principal that is not an operator sees nothing of the others'.
	Own         bool         `json:"own"`
	StepSeconds float64      `json:"step_seconds"` // the time a sample covers
	Samples     []dashSample `json:"samples"`      // the last hour, oldest first
}

type dashViewer struct {
	Subject  string `json:"subject"`
	Operator bool   `json:"operator"`
}

// dashCore is a session's core or a principal's.
type dashCore struct {
	Session     string         `json:"session"` // the first 8 hex digits of its id
	Kind        string         `json:"kind"`    // "session" or "principal"
	Subject     string         `json:"subject"`
	Started     time.Time      `json:"started"`
	LastActive  time.Time      `json:"last_active"`
	AgeSeconds  float64        `json:"age_seconds"`
	IdleSeconds float64        `json:"idle_seconds"` // 0 while a call is in progress: a core at work is not idle
	Calls       []dashInflight `json:"calls"`
	RSSBytes    int64          `json:"rss_bytes"` // the core process's resident memory; -1 when unknown
}

type dashInflight struct {
	Tool           string    `json:"tool"`
	Started        time.Time `json:"started"`
	ElapsedSeconds float64   `json:"elapsed_seconds"`
}

type dashCall struct {
	At         time.Time `json:"at"`
	Tool       string    `json:"tool"`
	Subject    string    `json:"subject"`
	Session    string    `json:"session"`
	DurationMS float64   `json:"duration_ms"`
	Outcome    string    `json:"outcome"`
}

type dashBoard struct {
	Subject string         `json:"subject"` // whose board; "" for a shared one
	Shared  bool           `json:"shared"`
	Path    string         `json:"path,omitempty"` // operators only
	Counts  map[string]int `json:"counts"`
	Tasks   []dashTask     `json:"tasks"`
	More    bool           `json:"more"`
	Error   string         `json:"error,omitempty"`
}

type dashTask struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Status      string   `json:"status"`
	Priority    int      `json:"priority"`
	ParentID    string   `json:"parent_id"`
	BlockedBy   []string `json:"blocked_by"`
	// OpenBlockers are those of BlockedBy listed on the board and open.
	OpenBlockers []string `json:"open_blockers"`
	Ready        bool     `json:"ready"`
	// Blocked is an open task waiting for an open blocker.
	Blocked   bool   `json:"blocked"`
	UpdatedAt string `json:"updated_at"`
}

// viewer is who looks at the dashboard.
type viewer struct {
	p        Principal
	operator bool // sees every principal
}

// sees reports whether the viewer may see what belongs to subjectKey.
func (v viewer) sees(subjectKey string) bool {
	return v.operator || (subjectKey != "" && subjectKey == v.p.SubjectKey)
}

// Sessions is what the dashboard and the metrics read of the gateway's
// sessions: how many cores are open, and a snapshot of them.
type Sessions interface {
	metrics.Counts
	// Cores returns the open cores, sessions' and principals'.
	Cores() []Core
}

// Core is an open core as the dashboard sees it.
type Core struct {
	ID         string // its session's id
	Subject    string // the principal's, for display
	SubjectKey string // the principal's Principal.SubjectKey; "" until bound
	Principal  bool   // a principal's core (2026-07-28), not a session's
	Created    time.Time
	LastActive time.Time // its last request
	Pid        int       // its process; 0 if none
}

// state builds what v may see now.
func (d *Dashboard) state(ctx context.Context, v viewer) State {
	now := time.Now()
	st := State{Now: now, Viewer: dashViewer{Subject: v.p.Subject, Operator: v.operator},
		Cores: []dashCore{}, Calls: []dashCall{}, Boards: []dashBoard{}, Statuses: statuses()}
	switch {
	case v.operator: // how busy the host is, like /metrics: an operator's to see
		st.Host = &dashHost{Name: d.gw.Host, StepSeconds: sampleStep.Seconds(), Samples: d.obs.hostSeries(now)}
	case v.p.SubjectKey != "":
		st.Host = &dashHost{Name: d.gw.Host, Own: true, StepSeconds: sampleStep.Seconds(), Samples: d.obs.ownSeries(v.p.SubjectKey, now)}
	}
	inflight, calls := d.obs.activity()
	for _, e := range d.obs.sessions.Cores() {
		if !v.sees(e.SubjectKey) {
			continue
		}
		st.Cores = append(st.Cores, coreView(e, inflight[e.ID], now))
	}
	slices.SortFunc(st.Cores, func(a, b dashCore) int { return a.Started.Compare(b.Started) })
	for i := len(calls) - 1; i >= 0; i-- { // newest first
		c := calls[i]
		if v.sees(c.subjectKey) {
			st.Calls = append(st.Calls, dashCall{At: c.At, Tool: c.Tool, Subject: c.Subject, Session: c.Session,
				DurationMS: float64(c.Duration.Microseconds()) / 1000, Outcome: c.Outcome})
		}
	}
	for _, b := range d.boardsFor(v) {
		st.Boards = append(st.Boards, d.obs.readBoard(ctx, b, v.operator))
	}
	return st
}

func coreView(e Core, calls []inflightCall, now time.Time) dashCore {
	last := e.LastActive
	c := dashCore{
		Session: shortID(e.ID), Kind: "session", Subject: e.Subject, Started: e.Created, LastActive: last,
		AgeSeconds: now.Sub(e.Created).Seconds(), IdleSeconds: max(0, now.Sub(last).Seconds()),
		Calls: []dashInflight{}, RSSBytes: rss(e.Pid),
	}
	if e.Principal {
		c.Kind = "principal"
	}
	if len(calls) > 0 {
		c.IdleSeconds = 0 // its last request may be minutes old: the call it started still runs
	}
	slices.SortFunc(calls, func(a, b inflightCall) int { return a.Started.Compare(b.Started) })
	for _, ic := range calls {
		c.Calls = append(c.Calls, dashInflight{Tool: ic.Tool, Started: ic.Started, ElapsedSeconds: now.Sub(ic.Started).Seconds()})
	}
	return c
}

// activity copies the calls in progress, by session id, and the recent ones.
func (o *Observer) activity() (map[string][]inflightCall, []finishedCall) {
	o.mu.Lock()
	defer o.mu.Unlock()
	in := make(map[string][]inflightCall, len(o.inflight))
	for id, calls := range o.inflight {
		for _, c := range calls {
			in[id] = append(in[id], c)
		}
	}
	return in, slices.Clone(o.ring)
}

// rss is the resident memory of process pid (a core's) from /proc, or -1.
func rss(pid int) int64 {
	if pid == 0 {
		return -1
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// dashColumn is the tasks of one status, as the page's first render
// shows them.
type dashColumn struct {
	dashStatus
	Count int // on the board, listed or not
	Tasks []dashTask
}

// Columns are the board's tasks by status, in Statuses order.
func (b dashBoard) Columns() []dashColumn {
	cols := make([]dashColumn, len(board.Statuses))
	for i, st := range statuses() {
		cols[i] = dashColumn{dashStatus: st, Count: b.Counts[st.Status]}
	}
	for _, t := range b.Tasks {
		if i := slices.Index(board.Statuses, t.Status); i >= 0 {
			cols[i].Tasks = append(cols[i].Tasks, t)
		}
	}
	return cols
}
