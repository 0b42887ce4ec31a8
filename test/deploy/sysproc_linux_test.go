package deploy

import "syscall"

// procAttr: a new process group, and SIGKILL if the test binary dies first,
// so a crashed test leaves no server behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
