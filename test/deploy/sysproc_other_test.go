//go:build !linux

package deploy

import "syscall"

// procAttr: a new process group (no parent-death signal outside Linux).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
