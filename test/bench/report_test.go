package main

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mjkoo/boris/test/bench/benchkit"
)

// sampleReport returns a fixed run: settings, environment and results.
func sampleReport() (config, environment, serverResult, serverResult) {
	cfg := config{spawns: 3, calls: 100, warmup: 50, protocol: "2025-11-25"}
	env := environment{
		Environment: benchkit.Environment{GoVersion: "go1.26.0", OS: "linux", Arch: "amd64", CPUs: 2, Node: "v20.1.0"},
		PeerVersion: "2026.8.31",
	}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	boris := serverResult{name: "boris",
		init: benchkit.Stats{N: 3, Mean: ms(4.8), P50: ms(4.854), P99: ms(4.876), Min: ms(4.7), Max: ms(4.876)},
		call: benchkit.Stats{N: 100, Mean: ms(0.642), P50: ms(0.435), P99: ms(4.395), Min: ms(0.3), Max: ms(5)},
		ping: benchkit.Stats{N: 100, Mean: ms(0.1), P50: ms(0.064), P99: ms(2.954), Min: ms(0.05), Max: ms(3)}}
	peer := serverResult{name: "server-filesystem",
		init: benchkit.Stats{N: 3, Mean: ms(311.257), P50: ms(320.235), P99: ms(349.73), Min: ms(300), Max: ms(349.73)},
		call: benchkit.Stats{N: 100, Mean: ms(0.922), P50: ms(0.859), P99: ms(1.782), Min: ms(0.5), Max: ms(2)},
		ping: benchkit.Stats{N: 100, Mean: ms(0.2), P50: ms(0.162), P99: ms(0.729), Min: ms(0.1), Max: ms(1)}}
	return cfg, env, boris, peer
}

// TestWriteTable checks the table and verdict lines a user reads.
func TestWriteTable(t *testing.T) {
	cfg, env, boris, peer := sampleReport()
	var buf bytes.Buffer
	writeTable(&buf, cfg, env, boris, peer)
	want := `go1.26.0 linux/amd64, 2 CPUs; node v20.1.0; server-filesystem 2026.8.31; protocol 2025-11-25
3 spawns per server; 100 calls and 100 pings (each after 50 warm-up) reading a 50-line file

                        boris    server-filesystem    ratio
initialize p50       4.854 ms           320.235 ms    0.015
initialize p99       4.876 ms           349.730 ms    0.014
initialize mean      4.800 ms           311.257 ms    0.015
small call p50       0.435 ms             0.859 ms    0.506
small call p99       4.395 ms             1.782 ms    2.466
small call mean      0.642 ms             0.922 ms    0.696
ping p50             0.064 ms             0.162 ms    0.395
ping p99             2.954 ms             0.729 ms    4.052

target boris initialize p50 <= 20.000 ms: 4.854 ms  MET
target small call p50 ratio (boris / server-filesystem) <= 0.250: 0.506  NOT MET
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("writeTable (-want +got):\n%s", diff)
	}
}

// TestEnvironmentJSON checks that -json names the peer's version after
// the peer, beside the machine's facts.
func TestEnvironmentJSON(t *testing.T) {
	_, env, _, _ := sampleReport()
	got, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"go":"go1.26.0","os":"linux","arch":"amd64","cpus":2,"node":"v20.1.0","server_filesystem":"2026.8.31"}`
	if string(got) != want {
		t.Errorf("environment JSON: got %s, want %s", got, want)
	}
}
