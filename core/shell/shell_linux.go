package shell

import "syscall"

// sysProcAttr puts the shell in its own process group, so a timeout or
// Close can signal everything it started at once, and asks the kernel to
// SIGKILL it if boris dies, so a crashed server leaves no shell behind.
// Pdeathsig only covers the shell itself (its descendants are reached via
// the process group while boris is alive), and strictly fires when the OS
// thread that started it exits, which Go only does for goroutines that end
// while locked to their thread (this package never locks threads).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
