//go:build !linux

package scope

import (
	"os"
	"time"
)

// BirthTime reports no creation time where statx(2) is not available.
func BirthTime(f *os.File) (t time.Time, ok bool) { return time.Time{}, false }
