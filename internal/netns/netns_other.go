//go:build !linux

package netns

import (
	"fmt"
	"syscall"
)

// Attr does nothing off Linux: Available says why.
func Attr(*syscall.SysProcAttr) bool { return false }

// Setup is Linux only.
func Setup() error { return fmt.Errorf("%w: Linux only", ErrUnavailable) }

// Available reports that namespaces are Linux only.
func Available([]string) error { return fmt.Errorf("%w: Linux only", ErrUnavailable) }

// Probe reports that namespaces are Linux only.
func Probe([]string, ...string) error { return Available(nil) }

// OpenHostProc is Linux only.
func OpenHostProc() (int, error) { return -1, fmt.Errorf("%w: Linux only", ErrUnavailable) }

// HostPid is Linux only.
func HostPid(int, int) (int, error) { return 0, fmt.Errorf("%w: Linux only", ErrUnavailable) }

// PrivateRoot is Linux only.
func PrivateRoot(View) error { return fmt.Errorf("%w: Linux only", ErrUnavailable) }
