package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ms2d converts fractional milliseconds to a duration.
func ms2d(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// lat returns latencies with the given p50 and p99 in milliseconds.
func lat(p50, p99 float64) benchkit.Stats {
	return benchkit.Stats{N: 30, Mean: ms2d(p50), P50: ms2d(p50), P99: ms2d(p99), Min: ms2d(p50 / 2), Max: ms2d(p99)}
}

// sampleResults returns a fixed run's settings and results: no cgroup v2
// for the last gateway, one process left over.
func sampleResults() (config, results) {
	cfg := config{sessions: 30, calls: 300, warmup: 20, rounds: 5}
	s := allSetups()
	r := results{
		env: environment{GoVersion: "go1.26.0", OS: "linux", Arch: "amd64", CPUs: 2, Kernel: "6.18.0", LandlockABI: 7, SandboxEnforced: true},
		configs: []configResult{
			{setup: s[0], health: isolation{"none", 7, "off"}, create: lat(5, 7), closed: lat(4, 6), bash: lat(3, 5), clean: true},
			{setup: s[1], health: isolation{"landlock", 7, "off"}, create: lat(5.5, 8), closed: lat(4.2, 6), bash: lat(4.5, 7), clean: true},
			{setup: s[2], health: isolation{"none", 7, "v2"}, create: lat(6, 9), closed: lat(5, 7), bash: lat(3.1, 5), clean: true},
			{setup: s[3], health: isolation{"landlock", 7, "off"}, create: lat(10, 14), closed: lat(5.5, 8), bash: lat(4.7, 8), clean: false},
			{setup: s[4], bash: lat(2, 3), clean: true},
			{setup: s[5], bash: lat(3.25, 5), clean: true},
		},
		leftover: []string{"4242 /tmp/boris --workdir /tmp/files"},
	}
	return cfg, r
}

// TestWriteTable checks the table, the /healthz lines with the note on a
// gateway that enforced less than it was asked for, the differences, the
// verdict lines and the leak check.
func TestWriteTable(t *testing.T) {
	cfg, r := sampleResults()
	var buf bytes.Buffer
	writeTable(&buf, cfg, r)
	want := `go1.26.0 linux/amd64, 2 CPUs; kernel 6.18.0; Landlock ABI 7 (boris --check); protocol 2025-11-25
per configuration: 30 session creates (connect; then close: DELETE, answered once the core exited)
after 1 warm-up; 300 bash ` + "`echo hi`" + ` calls on one warm session after 20 warm-up;
all configurations running at once, measured in 5 rounds of rotating order

isolation reported by each gateway's /healthz:
gateway  sandbox off  cgroups off  sandbox=none cgroup=off landlock_abi=7; exited on SIGTERM: yes
gateway  sandbox on   cgroups off  sandbox=landlock cgroup=off landlock_abi=7; exited on SIGTERM: yes
gateway  sandbox off  cgroups on   sandbox=none cgroup=v2 landlock_abi=7; exited on SIGTERM: yes
gateway  sandbox on   cgroups on   sandbox=landlock cgroup=off landlock_abi=7; exited on SIGTERM: no
note: gateway sandbox on cgroups on: asked for sandbox=landlock cgroup=v2, /healthz says sandbox=landlock cgroup=off

                                        session create       session close        bash echo hi
(ms)                                     p50       p99       p50       p99       p50       p99
gateway  sandbox off  cgroups off      5.000     7.000     4.000     6.000     3.000     5.000
gateway  sandbox on   cgroups off      5.500     8.000     4.200     6.000     4.500     7.000
gateway  sandbox off  cgroups on       6.000     9.000     5.000     7.000     3.100     5.000
gateway  sandbox on   cgroups on      10.000    14.000     5.500     8.000     4.700     8.000
stdio    sandbox off                       -         -         -         -     2.000     3.000
stdio    sandbox on                        -         -         -         -     3.250     5.000

added by (p50 difference, ms)         create               close                bash
sandbox, cgroups off                  +0.500              +0.200              +1.500
sandbox, cgroups on                   +4.000              +0.500              +1.600
cgroups, sandbox off                  +1.000              +1.000              +0.100
cgroups, sandbox on                   +4.500              +1.300              +0.200
sandbox + cgroups                     +5.000              +1.500              +1.700
sandbox, direct stdio                      -                   -              +1.250

sandbox adds 1.500 ms to a bash call (target ≤ 2 ms): met
sandbox+cgroup add 5.000 ms to a session create (target ≤ 5 ms): met
leak check: 1 process(es) left  FAIL
   4242 /tmp/boris --workdir /tmp/files
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("writeTable (-want +got):\n%s", diff)
	}
}

// TestTargets checks each verdict: a value equal to its limit meets it,
// one above it does not, and the bash target compares the gateways with
// cgroups off while the create target compares everything with nothing.
func TestTargets(t *testing.T) {
	s := allSetups()
	for _, tc := range []struct {
		name                 string
		bashOn, createOnBoth float64 // p50s in ms; the baseline's are 3 and 5
		want                 []bool
	}{
		{"at the limits", 5, 10, []bool{true, true}},
		{"over the limits", 5.001, 10.001, []bool{false, false}},
		{"faster with isolation", 2, 4, []bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := results{configs: []configResult{
				{setup: s[0], create: lat(5, 5), bash: lat(3, 3)},
				{setup: s[1], create: lat(5, 5), bash: lat(tc.bashOn, tc.bashOn)},
				{setup: s[3], create: lat(tc.createOnBoth, tc.createOnBoth), bash: lat(100, 100)},
			}}
			var got []bool
			for _, tg := range targets(r) {
				got = append(got, tg.Met)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("targets met (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckBash checks which bash results count as misbehaviour.
func TestCheckBash(t *testing.T) {
	text := func(s string, isErr bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
	}
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		ok   bool
	}{
		{"hi", text("stdout:\nhi\nexit_code: 0", false), true},
		{"isError", text("[EXEC_ERROR] could not run the command", true), false},
		{"no hi", text("stdout:\nhello\nexit_code: 0", false), false},
		{"hi on stderr", text("stderr:\nhi\nexit_code: 0", false), false},
		{"helper failed", text("stdout:\nhi\nstderr:\nboris sandbox: landlock: ...\nexit_code: 126", false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkBash(tc.res, nil); (err == nil) != tc.ok {
				t.Errorf("checkBash: got error %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// TestShare checks that rounds split a count evenly and lose nothing.
func TestShare(t *testing.T) {
	for _, tc := range []struct {
		total, rounds int
		want          []int
	}{
		{30, 5, []int{6, 6, 6, 6, 6}},
		{7, 3, []int{2, 2, 3}},
		{2, 4, []int{0, 1, 0, 1}},
	} {
		var got []int
		for r := range tc.rounds {
			got = append(got, share(tc.total, r, tc.rounds))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("share(%d, r, %d) (-want +got):\n%s", tc.total, tc.rounds, diff)
		}
	}
}

// TestParseHealth checks that /healthz's isolation object is read, and
// that a gateway without one reads as "not reported".
func TestParseHealth(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"isolation", `{"isolation":{"sandbox":"landlock","landlock_abi":7,"cgroup":"v2","subreaper":true},"sessions":0,"status":"ok"}`,
			"sandbox=landlock cgroup=v2 landlock_abi=7"},
		{"none", `{"sessions":0,"status":"ok"}`, "not reported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			rec.WriteString(tc.body)
			got, err := parseHealth(rec.Result())
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want {
				t.Errorf("parseHealth: got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWriteJSON checks that -json gives stdio no session create, lists no
// leftover processes as an empty list, and carries the targets.
func TestWriteJSON(t *testing.T) {
	cfg, r := sampleResults()
	r.leftover = nil
	var buf bytes.Buffer
	if err := writeJSON(&buf, cfg, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Configurations []map[string]any  `json:"configurations"`
		Targets        []benchkit.Target `json:"targets"`
		Leftover       []string          `json:"leftover_processes"`
		Environment    map[string]any    `json:"environment"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if n := len(got.Configurations); n != 6 {
		t.Fatalf("configurations: got %d, want 6", n)
	}
	if _, ok := got.Configurations[4]["session_create"]; ok {
		t.Errorf("stdio configuration has a session_create: %v", got.Configurations[4])
	}
	if hz, _ := got.Configurations[3]["healthz"].(map[string]any); hz["cgroup"] != "off" {
		t.Errorf("configurations[3].healthz: got %v, want cgroup off", got.Configurations[3]["healthz"])
	}
	if got.Leftover == nil || len(got.Leftover) != 0 {
		t.Errorf("leftover_processes: got %#v, want []", got.Leftover)
	}
	if len(got.Targets) != 2 || got.Targets[0].Value != 1.5 || !got.Targets[1].Met {
		t.Errorf("targets: got %+v, want the bash one at 1.5 ms and the create one met", got.Targets)
	}
	if got.Environment["landlock_abi"] != 7.0 {
		t.Errorf("environment.landlock_abi: got %v, want 7", got.Environment["landlock_abi"])
	}
}
