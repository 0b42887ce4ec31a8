package test

import (
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI returns the kernel's Landlock ABI version, 0 without
// Landlock. Tests of the sandbox skip below the version they need, saying
// which.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// landlockAvailable reports whether commands can be confined at all.
func landlockAvailable() bool { return landlockABI() >= 1 }
