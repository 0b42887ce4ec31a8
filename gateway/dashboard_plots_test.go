package gateway

import (
	"os"
	"strings"
	"testing"
)

// TestDashboardHostPlots: the host's plots count every principal's tool
// calls and sessions, and are an operator's to see: a principal sees plots
// of its own calls and sessions only.
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
	if st.Host.Own || st.Host.Name != host || got != 2*calls || sessions != 2 || st.Host.StepSeconds != 60 {
		t.Errorf("operator's plots: got host %q, %d calls, %d sessions at most, a sample every %vs; want %q, %d calls, 2 sessions, 60s",
			st.Host.Name, got, sessions, st.Host.StepSeconds, host, 2*calls)
	}

	st, ok = alice.state()
	if !ok || st.Host == nil || !st.Host.Own {
		t.Fatalf("alice's state: got ok %v, host %+v; want her own plots", ok, st.Host)
	}
	got, sessions = 0, 0
	for _, m := range st.Host.Samples {
		got += m.Calls
		sessions = max(sessions, m.Sessions)
	}
	if got != calls || sessions != 1 {
		t.Errorf("alice's plots: got %d calls, %d sessions at most; want her own: %d calls, 1 session (bob's are not hers to see)", got, sessions, calls)
	}
	if _, page := alice.get("/dashboard"); !strings.Contains(page, "Your sessions and calls on") {
		t.Errorf("alice's page does not say the plots are her own:\n%s", page)
	}
}
