//go:build !linux

package scope

import "os"

// openNoLinks has no kernel support outside Linux: Open always takes the
// os.Root way.
func openNoLinks(string) (*os.File, bool, error) { return nil, false, nil }

// hasNoLinks cannot tell outside Linux: the path is always resolved
// component by component.
func hasNoLinks(string) bool { return false }
