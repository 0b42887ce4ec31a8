//go:build !linux

package checkpoint

import (
	"errors"
	"time"
)

// watcher is Linux's inotify watcher; elsewhere every recording of a
// bash command scans the whole tree.
type watcher struct{}

func newWatcher(string, func(string) bool) (*watcher, error) {
	return nil, errors.New("changed-path tracking needs Linux's inotify")
}

func newWatcherSince(tree string, skip func(string) bool, _ func() (time.Time, bool)) (*watcher, error) {
	return newWatcher(tree, skip)
}

func (*watcher) close()                         {}
func (*watcher) drain()                         {}
func (*watcher) changes() ([]string, bool)      { return nil, true }
func (*watcher) forgetPending([]string)         {}
func (*watcher) pendingPaths() ([]string, bool) { return nil, true }
func (*watcher) markPending([]string)           {}
func (*watcher) isPending(string) bool          { return true }
func (*watcher) brokenBy() error                { return nil }
