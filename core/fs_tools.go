package core

// The filesystem toolset (SPEC §8): the tools of
// @modelcontextprotocol/server-filesystem, same names, parameters and
// results, on Boris's scoping.

// filesystemSpecs are the filesystem toolset's tools (--toolset filesystem or all).
func (b *boris) filesystemSpecs() []toolSpec {
	return nil
}
