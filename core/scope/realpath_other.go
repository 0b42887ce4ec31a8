//go:build !linux

package scope

import "os"

// realPath cannot read a descriptor's path portably outside Linux, so the
// post-open check is skipped there and os.Root confinement is relied on.
func realPath(*os.File) (string, bool, error) {
	return "", false, nil
}
