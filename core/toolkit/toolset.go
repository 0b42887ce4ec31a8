package toolkit

import "slices"

// ID names a toolset. Every tool carries its toolset's (Set); each
// toolset's package declares its own as the constant ID, so the
// composition root wires toolsets in, and --toolset selects them, by
// these constants and never by a string of its own.
type ID string

// Registered are the tools a server registers: what a toolset's line in
// the server's instructions may depend on.
type Registered []Tool

// Has reports whether a tool named name is registered.
func (r Registered) Has(name string) bool {
	return slices.ContainsFunc(r, func(t Tool) bool { return t.Name == name })
}

// Runs reports whether a tool that runs commands (Running) is
// registered: bash and its background tasks.
func (r Registered) Runs() bool {
	return slices.ContainsFunc(r, func(t Tool) bool { return t.Exec })
}

// Offers reports whether a tool of the toolset id is registered.
func (r Registered) Offers(id ID) bool {
	return slices.ContainsFunc(r, func(t Tool) bool { return t.Toolset == id })
}
