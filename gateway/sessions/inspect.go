package sessions

// What a session holds, as its tests and an operator's tools see it.

// StreamStats is what one SSE stream of a session keeps for replay.
type StreamStats struct {
	ID     string // the stream's id, the first part of its events' ids
	Bytes  int64  // its kept events' cost against Limits.Replay.Bytes
	Events int    // events kept
	Done   bool   // its call's response (or end) is in it: nothing more comes
}

// Pending reports how many client requests are in flight in s.
func (s *Session) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Held reports the bytes of s's core messages the gateway holds.
func (s *Session) Held() int64 { return s.held.InUse() }

// Streams reports what each of s's SSE streams keeps for replay.
func (s *Session) Streams() []StreamStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]StreamStats, 0, len(s.streams.byID))
	for _, st := range s.streams.byID {
		out = append(out, StreamStats{ID: st.id, Bytes: st.bytes, Events: len(st.events), Done: st.done})
	}
	return out
}
