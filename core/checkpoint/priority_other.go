//go:build !linux

package checkpoint

// atLowPriority runs f: only Linux sets a thread's priority.
func atLowPriority(f func()) { f() }
