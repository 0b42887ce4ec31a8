package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// TestTargets checks each verdict, a value equal to its limit meeting it.
func TestTargets(t *testing.T) {
	r := results{
		stdio:      stdioResult{call: benchkit.Stats{P50: 400 * time.Microsecond}},
		warmCreate: benchkit.Stats{P50: 5100 * time.Microsecond},
		gateways: []gatewayResult{{
			create:   benchkit.Stats{P50: 15 * time.Millisecond},
			call:     benchkit.Stats{P50: 800 * time.Microsecond},
			rawCall:  benchkit.Stats{P50: 300 * time.Microsecond},
			rawStdio: benchkit.Stats{P50: 100 * time.Microsecond},
			mem:      memory{sessions: 50, open: benchkit.TreeUsage{RSS: 50 * 16e6}},
		}, {}},
	}
	var got []bool
	for _, tg := range targets(r) {
		got = append(got, tg.Met)
	}
	if diff := cmp.Diff([]bool{true, true, false, true, false, false}, got); diff != "" {
		t.Errorf("targets met (-want +got):\n%s", diff)
	}
}
