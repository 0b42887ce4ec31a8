//go:build !linux

// Package nice reads and lowers scheduling priorities: only on Linux;
// elsewhere every priority reads 0 and nothing changes.
package nice

// Thread is 0: only Linux sets a thread's priority here.
func Thread() int { return 0 }

// LowerThread does nothing off Linux.
func LowerThread(int) {}

// Set does nothing off Linux.
func Set(int, int) {}
