package core

import (
	"io"
	"log/slog"
	"os"
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

// BenchmarkNewBoris measures what a core does from its configuration to a
// server ready to answer: the path policy, the sandbox, the shell, the
// checkpoint recorder (not opened), the board (not opened).
func BenchmarkNewBoris(b *testing.B) {
	dir := b.TempDir()
	cfg, err := ParseConfig([]string{"--workdir", dir}, os.Environ(), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	b.ReportAllocs()
	for b.Loop() {
		bo, err := newBoris(cfg, os.Environ(), nil, log, log)
		if err != nil {
			b.Fatal(err)
		}
		bo.close()
	}
}
