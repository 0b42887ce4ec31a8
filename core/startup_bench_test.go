package core

import (
	"testing"
)

// BenchmarkNewServer measures building the MCP server, what a core pays
// before it can answer initialize, and then registering every tool of the
// default configuration, which it pays once the client has initialized.
func BenchmarkNewServer(b *testing.B) {
	bo := newBenchBoris(b, "--workdir", b.TempDir())
	b.Run("server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bo.newServer()
		}
	})
	b.Run("tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bo.newServer()
			bo.registerTools()
		}
	})
}
