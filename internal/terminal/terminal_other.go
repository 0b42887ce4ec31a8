//go:build !linux && !darwin

package terminal

import "os"

// Is reports false: terminals are recognised on Linux and macOS only.
func Is(*os.File) bool { return false }
