// Package stdin gives boris a standard input its runtime can wait on
// without a thread.
//
// A pipe handed to a child is blocking, and Go reads a blocking descriptor
// with a system call that holds a thread until a message arrives. The
// message then wakes that thread, which hands the work to another one:
// two wake-ups per request where one would do, and on a virtual machine
// each costs tens of microseconds. A non-blocking descriptor is waited on
// by the runtime's poller instead, and the goroutine that reads a message
// is the one that handles it.
//
// O_NONBLOCK belongs to the open file description, which the process that
// started boris may share (a shell's pipeline, a parent that kept its copy
// of the pipe). Setting it there could break that process's own reads, so
// a pipe is opened again through /proc/self/fd: the new description reads
// the same pipe and is boris's alone. Anything else (a socket pair, a
// terminal, a file) is read as it was given.
package stdin

import "os"

// Pollable returns a non-blocking reader of the pipe f, on its own open
// file description, or f itself when f is not a pipe or cannot be opened
// again. f stays open: its descriptor is boris's standard input.
func Pollable(f *os.File) *os.File {
	if p := reopen(f); p != nil {
		return p
	}
	return f
}
