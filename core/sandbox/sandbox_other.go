//go:build !linux

package sandbox

import "errors"

// selfExe is unused off Linux: the sandbox is never enforced there.
const selfExe = ""

func abiVersion([]string) int { return 0 }

func restrict(Spec) error { return errors.New("landlock is Linux only") }

func execve([]string) error { return errors.New("the sandbox helper is Linux only") }

func dropCapabilities() error { return nil }

// NonDumpable does nothing off Linux.
func NonDumpable() error { return nil }
