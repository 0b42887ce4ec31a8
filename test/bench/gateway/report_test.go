package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// sampleResults returns a fixed run's settings and results, with one
// process left over.
func sampleResults() (config, results) {
	cfg := config{sessions: 3, calls: 100, warmup: 50, workers: 8, duration: time.Second, open: 5}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	lat := func(p50, p99, mean float64) benchkit.Stats {
		return benchkit.Stats{N: 100, Mean: ms(mean), P50: ms(p50), P99: ms(p99), Min: ms(p50 / 2), Max: ms(p99 * 2)}
	}
	r := results{
		env: environment{
			Environment: benchkit.Environment{GoVersion: "go1.26.0", OS: "linux", Arch: "amd64", CPUs: 2, Node: "v20.1.0"},
			PeerVersion: "4.0.0",
		},
		stdio:      stdioResult{call: lat(0.534, 1.635, 0.619), ping: lat(0.150, 0.5, 0.2)},
		warmCreate: lat(3.1, 4.2, 3.2), warmIsolation: "sandbox=landlock cgroup=v2",
		gateways: []gatewayResult{{
			name: "boris-gateway", create: lat(8.982, 9.062, 9), call: lat(0.906, 4.628, 1.105), ping: lat(0.295, 1, 0.3),
			rawCall: lat(0.290, 0.9, 0.3), rawStdio: lat(0.120, 0.4, 0.13),
			throughput: 1570.4, clean: true,
			mem: memory{sessions: 5, idle: benchkit.TreeUsage{Procs: 1, RSS: 16.5e6, PSS: 10e6, GatewayRSS: 16.5e6},
				open: benchkit.TreeUsage{Procs: 6, Cores: 5, RSS: 65.1e6, PSS: 35.5e6, GatewayRSS: 15.9e6}},
		}, {
			name: "supergateway", create: lat(15.686, 17.234, 16), call: lat(2.449, 10.266, 3.342), ping: lat(1.609, 3, 1.7),
			rawCall: lat(1.2, 4, 1.3), rawStdio: lat(0.125, 0.4, 0.13),
			throughput: 461.2, clean: false,
			mem: memory{sessions: 5, idle: benchkit.TreeUsage{Procs: 1, RSS: 158e6, PSS: 150e6, GatewayRSS: 158e6},
				open: benchkit.TreeUsage{Procs: 11, Cores: 5, RSS: 216.7e6, PSS: 176.75e6, GatewayRSS: 158.8e6}},
		}},
		leftover: []string{"4242 /tmp/boris --workdir /tmp/files"},
	}
	return cfg, r
}

// TestWriteTable checks the table, the verdict lines and the leak check a
// user reads.
func TestWriteTable(t *testing.T) {
	cfg, r := sampleResults()
	var buf bytes.Buffer
	writeTable(&buf, cfg, r)
	want := `go1.26.0 linux/amd64, 2 CPUs; node v20.1.0; supergateway 4.0.0; protocol 2025-11-25
3 session creates; 100 calls and 100 pings after 50 warm-up, view of a 50-line file;
throughput: 8 sessions for 1s; memory: 5 open sessions (MB = 10^6 bytes)

                              boris-gateway   supergateway    ratio   direct stdio
session create p50                 8.982 ms      15.686 ms    0.573              -
session create p99                 9.062 ms      17.234 ms    0.526              -
  with --warm-cores 1, p50         3.100 ms
  with --warm-cores 1, p99         4.200 ms   (sandbox=landlock cgroup=v2)
small call p50                     0.906 ms       2.449 ms    0.370       0.534 ms
small call p99                     4.628 ms      10.266 ms    0.451       1.635 ms
small call mean                    1.105 ms       3.342 ms    0.331       0.619 ms
ping p50                           0.295 ms       1.609 ms    0.183       0.150 ms
small call p50 - stdio p50        +0.372 ms      +1.915 ms
minimal clients: call p50          0.290 ms       1.200 ms    0.242       0.120 ms
minimal clients: call p99          0.900 ms       4.000 ms    0.225       0.400 ms
  the hop: p50 - stdio p50        +0.170 ms      +1.075 ms
    stdio p50, taking turns        0.120 ms       0.125 ms
throughput, 8 sessions              1570 /s         461 /s    3.405
RSS per open session               13.02 MB       43.34 MB    0.300
PSS per open session                7.10 MB       35.35 MB    0.201
tree RSS, sessions open             65.1 MB       216.7 MB    0.300
tree RSS, no session                16.5 MB       158.0 MB    0.104
gateway process RSS                 15.9 MB       158.8 MB    0.100
processes / cores in tree             6 / 5         11 / 5
exited on SIGTERM                       yes             no

target boris-gateway session create p50 <= 15.000 ms: 8.982 ms  MET
target boris-gateway small call p50 <= 1.000 ms: 0.906 ms  MET
target boris-gateway small call p50 - direct stdio p50 <= 0.300 ms: 0.372 ms  NOT MET
target boris-gateway small call p50 - direct stdio p50, minimal clients (the hop) <= 0.200 ms: 0.170 ms  MET
target boris-gateway --warm-cores 1 session create p50 <= 5.000 ms: 3.100 ms  MET
target boris-gateway RSS per open session <= 15.000 MB: 13.020 MB  MET
leak check: 1 process(es) left  FAIL
   4242 /tmp/boris --workdir /tmp/files
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("writeTable (-want +got):\n%s", diff)
	}
}

// TestWriteJSON checks that -json names supergateway's version after it
// and lists no leftover processes as an empty list, not null.
func TestWriteJSON(t *testing.T) {
	cfg, r := sampleResults()
	r.leftover = nil
	var buf bytes.Buffer
	if err := writeJSON(&buf, cfg, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Environment map[string]any `json:"environment"`
		Leftover    []string       `json:"leftover_processes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if v := got.Environment["supergateway"]; v != "4.0.0" {
		t.Errorf("environment.supergateway: got %v, want 4.0.0", v)
	}
	if got.Leftover == nil || len(got.Leftover) != 0 {
		t.Errorf("leftover_processes: got %#v, want []", got.Leftover)
	}
}
