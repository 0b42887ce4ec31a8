package gateway

import (
	"os"
	"strings"
	"testing"
)

// TestDashboardHostPlots: the host's plots count every principal's tool
// calls and sessions, and are an operator's to see: a principal's state
// has no host, however many calls it made.
func TestDashboardHostPlots(t *testing.T) {
	g := newDashGateway(t)
	host, _ := os.Hostname() // without --node-id, the plots name the machine
	const calls = 3
	for _, tok := range []string{dashAlice, dashBob} {
		sid := g.initializeAs(tok)
		for range calls {
			g.callAs(tok, sid, "list_tasks", map[string]any{})
		}
	}
	alice, ops := g.browser(t), g.browser(t)
	alice.login(dashAlice)
	ops.login(dashOps)

	st, ok := ops.state()
	if !ok || st.Host == nil {
		t.Fatalf("operator's state: got ok %v, host %+v; want the host's plots", ok, st.Host)
	}
	got, sessions := 0, 0
	for _, m := range st.Host.Samples {
		got += m.Calls
		sessions = max(sessions, m.Sessions)
	}
	if st.Host.Name != host || got != 2*calls || sessions != 2 || st.Host.StepSeconds != 60 {
		t.Errorf("operator's plots: got host %q, %d calls, %d sessions at most, a sample every %vs; want %q, %d calls, 2 sessions, 60s",
			st.Host.Name, got, sessions, st.Host.StepSeconds, host, 2*calls)
	}

	st, ok = alice.state()
	if !ok || st.Host != nil {
		t.Errorf("alice's state: got ok %v, host %+v; want no host plots (she is no operator)", ok, st.Host)
	}
	if _, page := alice.get("/dashboard"); strings.Contains(page, `id="host"`) || strings.Contains(page, "data-plot") {
		t.Errorf("alice's page shows the host's plots:\n%s", page)
	}
}
