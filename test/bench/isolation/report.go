package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// The targets. They are reported, never enforced.
const (
	bashTarget   = 2 * time.Millisecond // the sandbox's cost on a bash call's p50
	createTarget = 5 * time.Millisecond // the sandbox's and cgroup's on a session create's p50
)

// results is everything one run measured.
type results struct {
	env      environment
	configs  []configResult  // in allSetups order
	leftover []string        // processes naming the fixture after the run
	download *downloadResult // the network part's download, nil when not run
}

// of returns the result of configuration s (zero if it was not measured).
func (r results) of(s setup) configResult {
	for _, c := range r.configs {
		if c.setup == s {
			return c
		}
	}
	return configResult{}
}

// comparison is a p50 difference the report shows: what turning some
// isolation on adds to the configuration without it.
type comparison struct {
	name    string
	on, off setup
}

// comparisons lists the differences shown; the first is the bash target's
// and the fifth the session create target's.
func comparisons() []comparison {
	return []comparison{
		{"sandbox, cgroups off", setup{sandbox: true}, setup{}},
		{"sandbox, cgroups on", setup{sandbox: true, cgroups: true}, setup{cgroups: true}},
		{"cgroups, sandbox off", setup{cgroups: true}, setup{}},
		{"cgroups, sandbox on", setup{sandbox: true, cgroups: true}, setup{sandbox: true}},
		{"sandbox + cgroups", setup{sandbox: true, cgroups: true}, setup{}},
		{"sandbox, direct stdio", setup{stdio: true, sandbox: true}, setup{stdio: true}},
	}
}

// added is what c's isolation adds: the p50 differences of session
// create, session close and bash call.
func (r results) added(c comparison) (create, closed, bash time.Duration) {
	on, off := r.of(c.on), r.of(c.off)
	return on.create.P50 - off.create.P50, on.closed.P50 - off.closed.P50, on.bash.P50 - off.bash.P50
}

// targets evaluates the targets: the sandbox's cost on a bash call
// through the gateway (cgroups off on both sides), and the sandbox's and
// cgroup's together on a session create. A value equal to its limit meets it.
func targets(r results) []benchkit.Target {
	_, _, bash := r.added(comparisons()[0])
	create, _, _ := r.added(comparisons()[4])
	return []benchkit.Target{
		{Name: "sandbox's added bash call p50 (gateway, cgroups off)", Value: benchkit.Ms(bash), Limit: benchkit.Ms(bashTarget), Unit: "ms", Met: bash <= bashTarget},
		{Name: "sandbox's and cgroup's added session create p50 (gateway)", Value: benchkit.Ms(create), Limit: benchkit.Ms(createTarget), Unit: "ms", Met: create <= createTarget},
	}
}

// report writes the results to w, as a table or, with -json, as JSON.
func report(w io.Writer, cfg config, r results) error {
	if cfg.jsonOut {
		return writeJSON(w, cfg, r)
	}
	writeTable(w, cfg, r)
	return nil
}

// writeTable prints the run's settings, what each gateway enforces, the
// latencies, the differences, the verdict lines and the leak check.
func writeTable(w io.Writer, cfg config, r results) {
	fmt.Fprintf(w, "%s; protocol %s\n", r.env, protocolVersion)
	fmt.Fprintf(w, "per configuration: %d session creates (connect; then close: DELETE, answered once the core exited)\n", cfg.sessions)
	fmt.Fprintf(w, "after 1 warm-up; %d bash `echo hi` calls on one warm session after %d warm-up;\n", cfg.calls, cfg.warmup)
	fmt.Fprintf(w, "all configurations running at once, measured in %d rounds of rotating order\n\n", cfg.rounds)
	writeHealth(w, r)
	fmt.Fprintf(w, "%-34s %19s %19s %19s\n", "", "session create", "session close", "bash echo hi")
	fmt.Fprintf(w, "%-34s %9s %9s %9s %9s %9s %9s\n", "(ms)", "p50", "p99", "p50", "p99", "p50", "p99")
	for _, c := range r.configs {
		fmt.Fprintf(w, "%-34s %9s %9s %9s %9s %9s %9s\n", c.setup.name(),
			ms(c.create.P50), ms(c.create.P99), ms(c.closed.P50), ms(c.closed.P99), ms(c.bash.P50), ms(c.bash.P99))
	}
	fmt.Fprintf(w, "\n%-34s %9s %19s %19s\n", "added by (p50 difference, ms)", "create", "close", "bash")
	for _, c := range comparisons() {
		create, closed, bash := r.added(c)
		if c.on.stdio {
			create, closed = 0, 0
		}
		fmt.Fprintf(w, "%-34s %9s %19s %19s\n", c.name, delta(create), delta(closed), delta(bash))
	}
	fmt.Fprintln(w)
	writeVerdicts(w, targets(r))
	writeNet(w, r)
	benchkit.WriteLeaks(w, r.leftover)
}

// writeHealth prints what each gateway's /healthz said it enforces, and a
// note wherever that is not what its flags asked for (no cgroup v2 here,
// no Landlock), since the columns then do not measure what they name.
func writeHealth(w io.Writer, r results) {
	fmt.Fprintln(w, "isolation reported by each gateway's /healthz:")
	var notes []string
	for _, c := range r.configs {
		if c.setup.stdio {
			continue
		}
		fmt.Fprintf(w, "%-34s %s; exited on SIGTERM: %s\n", c.setup.name(), c.health, benchkit.YesNo(c.clean))
		if want := wantHealth(c.setup); c.health.Sandbox != want.Sandbox || c.health.Cgroup != want.Cgroup {
			notes = append(notes, fmt.Sprintf("note: %s: asked for sandbox=%s cgroup=%s, /healthz says sandbox=%s cgroup=%s",
				label(c.setup), want.Sandbox, want.Cgroup, c.health.Sandbox, c.health.Cgroup))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w)
}

// wantHealth is what /healthz reports when a gateway enforces all that s
// asks for.
func wantHealth(s setup) isolation {
	want := isolation{Sandbox: "none", Cgroup: "off"}
	if s.sandbox {
		want.Sandbox = "landlock"
	}
	if s.cgroups {
		want.Cgroup = "v2"
	}
	return want
}

// writeVerdicts prints one line per target, in the words.
func writeVerdicts(w io.Writer, ts []benchkit.Target) {
	fmt.Fprintf(w, "sandbox adds %.3f ms to a bash call (target ≤ %.0f ms): %s\n", ts[0].Value, ts[0].Limit, metWord(ts[0].Met))
	fmt.Fprintf(w, "sandbox+cgroup add %.3f ms to a session create (target ≤ %.0f ms): %s\n", ts[1].Value, ts[1].Limit, metWord(ts[1].Met))
}

// metWord words a target's outcome: "met" or "NOT met".
func metWord(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

// ms formats d in milliseconds with three decimals; zero is "-", for what
// was not measured (session create over stdio).
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", benchkit.Ms(d))
}

// delta formats a signed difference in milliseconds; zero is "-".
func delta(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.3f", benchkit.Ms(d))
}

// jsonConfig is one configuration's result, for -json.
type jsonConfig struct {
	Name            string              `json:"name"`
	Transport       string              `json:"transport"` // "gateway" or "stdio"
	Sandbox         string              `json:"sandbox"`   // the core's --sandbox
	Cgroups         string              `json:"cgroups,omitempty"`
	Healthz         *isolation          `json:"healthz,omitempty"`
	SessionCreate   *benchkit.JSONStats `json:"session_create,omitempty"`
	SessionClose    *benchkit.JSONStats `json:"session_close,omitempty"`
	Bash            benchkit.JSONStats  `json:"bash_echo_hi"`
	ExitedOnSIGTERM *bool               `json:"exited_on_sigterm,omitempty"`
}

// jsonAdded is one comparison's p50 differences, for -json.
type jsonAdded struct {
	Name            string   `json:"name"`
	SessionCreateMs *float64 `json:"session_create_p50_ms,omitempty"`
	SessionCloseMs  *float64 `json:"session_close_p50_ms,omitempty"`
	BashMs          float64  `json:"bash_p50_ms"`
}

// jsonReport is the whole -json output.
type jsonReport struct {
	Environment    environment        `json:"environment"`
	Protocol       string             `json:"protocol"`
	Sessions       int                `json:"sessions"`
	Calls          int                `json:"calls"`
	Warmup         int                `json:"warmup"`
	Rounds         int                `json:"rounds"`
	Configurations []jsonConfig       `json:"configurations"`
	Added          []jsonAdded        `json:"added"`
	Targets        []benchkit.Target  `json:"targets"`
	NetTargets     []benchkit.Target  `json:"net_targets,omitempty"`
	DownloadMs     map[string]float64 `json:"download_100mb_p50_ms,omitempty"`
	Leftover       []string           `json:"leftover_processes"`
}

// writeJSON prints the machine-readable result.
func writeJSON(w io.Writer, cfg config, r results) error {
	out := jsonReport{
		Environment: r.env, Protocol: protocolVersion,
		Sessions: cfg.sessions, Calls: cfg.calls, Warmup: cfg.warmup, Rounds: cfg.rounds,
		Targets: targets(r), NetTargets: netTargets(r), Leftover: r.leftover,
	}
	if d := r.download; d != nil && d.Skipped == "" {
		out.DownloadMs = map[string]float64{"direct": benchkit.Ms(d.Direct), "proxy_http": benchkit.Ms(d.Proxy), "proxy_connect": benchkit.Ms(d.Tunnel)}
	}
	if out.Leftover == nil {
		out.Leftover = []string{}
	}
	for _, c := range r.configs {
		out.Configurations = append(out.Configurations, configJSON(c))
	}
	for _, c := range comparisons() {
		create, closed, bash := r.added(c)
		a := jsonAdded{Name: c.name, BashMs: benchkit.Ms(bash)}
		if !c.on.stdio {
			a.SessionCreateMs, a.SessionCloseMs = ptr(benchkit.Ms(create)), ptr(benchkit.Ms(closed))
		}
		out.Added = append(out.Added, a)
	}
	return benchkit.WriteJSON(w, out)
}

// configJSON converts one configuration's result.
func configJSON(c configResult) jsonConfig {
	j := jsonConfig{Name: label(c.setup), Transport: "stdio", Sandbox: c.setup.sandboxArg(), Bash: c.bash.JSON()}
	if c.setup.stdio {
		return j
	}
	health := c.health
	j.Transport, j.Cgroups, j.Healthz = "gateway", c.setup.cgroupsArg(), &health
	j.SessionCreate, j.SessionClose = ptr(c.create.JSON()), ptr(c.closed.JSON())
	j.ExitedOnSIGTERM = ptr(c.clean)
	return j
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
