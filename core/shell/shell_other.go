//go:build !linux

package shell

import "syscall"

// sysProcAttr puts the shell in its own process group, so a timeout or
// Close can signal everything it started at once. Only Linux offers a
// parent-death signal, so elsewhere a crashed boris may leave children.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
