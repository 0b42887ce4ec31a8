//go:build !linux

package cgroup

import (
	"fmt"
	"syscall"
)

// Manager creates and removes the session groups of one gateway. cgroups
// are Linux only: elsewhere Open always fails.
type Manager struct{}

// Open fails with ErrUnavailable: cgroups are Linux only.
func Open(opts Options) (*Manager, error) {
	if err := opts.Limits.validate(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: cgroups are Linux only", ErrUnavailable)
}

// Info reports what m enforces: nothing.
func (m *Manager) Info() Info { return Info{} }

// New fails with ErrUnavailable.
func (m *Manager) New(name string) (*Group, error) {
	return nil, fmt.Errorf("%w: cgroups are Linux only", ErrUnavailable)
}

// Close does nothing.
func (m *Manager) Close() error { return nil }

// Group is the cgroup of one session; there are none outside Linux.
type Group struct{}

// FD returns -1.
func (g *Group) FD() int { return -1 }

// ApplyTo does nothing.
func (g *Group) ApplyTo(attr *syscall.SysProcAttr) {}

// Path returns "".
func (g *Group) Path() string { return "" }

// Procs fails with ErrUnavailable.
func (g *Group) Procs() ([]int, error) {
	return nil, fmt.Errorf("%w: cgroups are Linux only", ErrUnavailable)
}

// Kill does nothing.
func (g *Group) Kill() error { return nil }
