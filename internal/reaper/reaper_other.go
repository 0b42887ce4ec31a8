//go:build !linux

package reaper

import "errors"

func setSubreaper() error { return errors.New("reaper: child subreapers are Linux only") }

type child struct {
	pid    int
	zombie bool
}

func children() []child { return nil }

func childPids() []int { return nil }

func readChild(int) (child, bool) { return child{}, false }
func scanChildren() []int         { return nil }
func noChildren() bool            { return true }
