package dashboard

import (
	"time"
)

// maxPlotted bounds the principals whose own plots the gateway keeps (a
// principal that is not an operator sees its own sessions and calls, not
// the host's); past it, the one idle longest goes.
const maxPlotted = 256

// plotted is a principal's own plots and when it last did something.
type plotted struct {
	s    *samples
	last time.Time
}

// own returns the plots of the principal key, started if need be, the
// principal idle longest going first past maxPlotted. Called with mu held.
func (o *Observer) own(key string, now time.Time) *samples {
	if p, ok := o.mine[key]; ok {
		p.last = now
		return p.s
	}
	if len(o.mine) >= maxPlotted {
		idle, oldest := "", now
		for k, p := range o.mine {
			if !p.last.After(oldest) {
				idle, oldest = k, p.last
			}
		}
		delete(o.mine, idle)
	}
	p := &plotted{s: newSamples(), last: now}
	o.mine[key] = p
	return p.s
}

// coreCounts are a principal's cores open: sessions' and its principal core.
type coreCounts struct{ sessions, principal int }

// countOwn records in each principal's plots the cores it has open now:
// those with cores, and 0 for those plotted without any.
func (o *Observer) countOwn(now time.Time, cores []Core) {
	counts := map[string]coreCounts{}
	for _, c := range cores {
		if c.SubjectKey == "" {
			continue // not yet bound to a principal
		}
		n := counts[c.SubjectKey]
		if c.Principal {
			n.principal++
		} else {
			n.sessions++
		}
		counts[c.SubjectKey] = n
	}
	for key, n := range counts {
		o.own(key, now).count(now, n.sessions, n.principal)
	}
	for key, p := range o.mine {
		if _, open := counts[key]; !open {
			p.s.count(now, 0, 0)
		}
	}
}

// ownSeries returns the plots of the principal key up to now: empty if it
// has done nothing the gateway still remembers.
func (o *Observer) ownSeries(key string, now time.Time) []dashSample {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, ok := o.mine[key]
	if !ok {
		return []dashSample{}
	}
	return p.s.series(now)
}
