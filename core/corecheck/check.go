// Package corecheck is what `boris --check` reports, in a package of its own:
// the gateway reads the report of the cores it will start without taking
// in the tools. It imports only core/sandbox, for the sandbox's part.
package corecheck

import "github.com/mjkoo/boris/core/sandbox"

// Report is what `boris --check` prints: what a session started with
// the same settings would enforce. The gateway reads it at start-up.
type Report struct {
	Version string   `json:"version"`
	Workdir string   `json:"workdir"`
	Allowed []string `json:"allowed"` // null: the whole file system
	Denied  []string `json:"denied"`
	Tools   []string `json:"tools"`
	// Checkpoints is "on", "off", or "unavailable: " and why (git missing).
	Checkpoints string         `json:"checkpoints"`
	Sandbox     sandbox.Report `json:"sandbox"`
}
