//go:build !linux

package core

// threadNice is 0: only Linux sets a thread's priority.
func threadNice() int { return 0 }

// renice does nothing off Linux.
func renice(int, int) {}
