package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// hostReading is what the host's kernel says of its CPUs at one moment:
// cumulative counters, compared before and after the load.
type hostReading struct {
	at          time.Time
	busy, total uint64 // jiffies of every CPU (/proc/stat): not idle or iowait, and all
	stallUs     uint64 // microseconds some task waited for a CPU (/proc/pressure/cpu "some"); 0 without PSI
	psi         bool
}

// readHost reads the CPU counters; what the kernel lacks stays zero.
func readHost() hostReading {
	r := hostReading{at: time.Now()}
	if data, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(data), "\n")
		for i, f := range strings.Fields(line)[1:] {
			n, _ := strconv.ParseUint(f, 10, 64)
			r.total += n
			if i != 3 && i != 4 { // idle, iowait
				r.busy += n
			}
		}
	}
	if data, err := os.ReadFile("/proc/pressure/cpu"); err == nil {
		for _, f := range strings.Fields(strings.SplitN(string(data), "\n", 2)[0]) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				r.stallUs, _ = strconv.ParseUint(v, 10, 64)
				r.psi = true
			}
		}
	}
	return r
}

// hostLoad is the host between two readings: the share of CPU time busy
// (every process's, not only Boris's) and the share of wall time some
// task was kept waiting for a CPU.
type hostLoad struct {
	busy, stalled float64 // 0..1; stalled < 0 without PSI
}

func between(a, b hostReading) hostLoad {
	l := hostLoad{stalled: -1}
	if b.total > a.total {
		l.busy = float64(b.busy-a.busy) / float64(b.total-a.total)
	}
	if a.psi && b.psi && b.at.After(a.at) {
		l.stalled = float64(b.stallUs-a.stallUs) / float64(b.at.Sub(a.at).Microseconds())
	}
	return l
}

// sleepProbe measures, until ctx ends, how late this process wakes from
// 2 ms sleeps: the wait for a CPU that the callers' own goroutines see
// too, whatever serves their calls. Nothing of Boris's is on its path.
func sleepProbe(ctx context.Context) benchkit.Stats {
	var late []time.Duration
	for ctx.Err() == nil {
		start := time.Now()
		time.Sleep(2 * time.Millisecond)
		late = append(late, time.Since(start)-2*time.Millisecond)
	}
	return benchkit.Summarize(late)
}

// window is a span of the load's time.
type window struct{ from, to time.Time }

// overlapping counts the calls (start, duration) that overlap one of ws,
// and returns with it the share of [from, to] the windows cover.
func overlapping(calls []window, ws []window, from, to time.Time) (n int, covered float64) {
	for _, c := range calls {
		for _, w := range ws {
			if c.from.Before(w.to) && w.from.Before(c.to) {
				n++
				break
			}
		}
	}
	var sum time.Duration
	for _, w := range ws {
		sum += w.to.Sub(w.from)
	}
	if to.After(from) {
		covered = min(1, float64(sum)/float64(to.Sub(from)))
	}
	return n, covered
}
