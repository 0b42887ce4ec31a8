package interop

import (
	"path/filepath"
	"testing"
)

// TestTypeScriptClientChannel: extension tools ask the official TypeScript
// clients, which answer: 1.x on a 2025-11-25 session (requests from server
// to client) and 2.x at 2026-07-28 (InputRequiredResult rounds), the
// framework's example 08 (four questions) and a sampling round trip. See
// channel.mjs.
func TestTypeScriptClientChannel(t *testing.T) {
	ready(t)
	t.Parallel()
	g := startGateway(t, workdir(t), "--",
		"--extensions", filepath.Join(here, "../testdata/extensions/shipped"),
		"--extensions", filepath.Join(here, "../testdata/extensions/demo"))
	for _, v := range []string{"v1", "v2"} {
		t.Run(v, func(t *testing.T) {
			s, out, err := runClient(t, "channel.mjs", g.url, v)
			t.Logf("channel.mjs %s summary:\n%s", v, out)
			if err != nil || !s.OK {
				t.Fatalf("channel.mjs %s: %v %v\ngateway log:\n%s", v, err, s.Failures, g.logs)
			}
		})
	}
}
