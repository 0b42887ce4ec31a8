package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// tsSummary is the part of client.mjs's and client2026.mjs's JSON summaries
// the tests read.
type tsSummary struct {
	OK       bool     `json:"ok"`
	Failures []string `json:"failures"`
	Steps    struct {
		Connect struct {
			Era             string  `json:"era"`
			ProtocolVersion string  `json:"protocolVersion"`
			SessionID       *string `json:"sessionId"`
		} `json:"connect"`
		Initialize struct {
			ProtocolVersion string `json:"protocolVersion"`
			SessionID       string `json:"sessionId"`
		} `json:"initialize"`
		Bash struct {
			ProgressBeforeResult int `json:"progressBeforeResult"`
		} `json:"bashWithProgress"`
		Cancel struct {
			Started     bool `json:"started"`
			ProcessGone bool `json:"processGone"`
		} `json:"cancel"`
		Background struct {
			OutputRead bool `json:"outputRead"`
		} `json:"backgroundTask"`
	} `json:"steps"`
}

// runClient runs a client script and returns its summary, its output and
// its exit status; the error also says when the output is not a summary.
// It may run off the test's goroutine.
func runClient(t *testing.T, args ...string) (tsSummary, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := runNode(t, ctx, args...)
	var s tsSummary
	if jerr := json.Unmarshal(out, &s); jerr != nil {
		err = fmt.Errorf("%v; its output is not the JSON summary (%v)", err, jerr)
	}
	return s, string(out), err
}

// TestTypeScriptClient2026 drives the gateway with the official TypeScript
// SDK 2.x client (@modelcontextprotocol/client) on the 2026-07-28 revision,
// pinned and then in auto mode (client2026.mjs: server/discover, tools/list,
// bash with progress, view, a cd kept between requests, a background task
// read in later requests, a call cancelled with an AbortSignal whose command
// must die), while the 1.x client (client.mjs) runs its 2025-11-25 session
// suite against the same gateway at the same time. The two 2026 runs are
// the one anonymous principal and share its core, so they run one after the
// other.
func TestTypeScriptClient2026(t *testing.T) {
	ready(t)
	t.Parallel()
	g := startGateway(t, workdir(t), "--", "--extensions", filepath.Join(here, conformanceExtension))
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, mode := range []string{"pin", "auto"} {
			s, out, err := runClient(t, "client2026.mjs", g.url, mode, fixtureName, fixtureText)
			t.Logf("client2026.mjs %s summary:\n%s", mode, out)
			switch {
			case err != nil || !s.OK:
				t.Errorf("TypeScript SDK 2.x client (%s) against boris-gateway: %v\n  %s", mode, err, strings.Join(s.Failures, "\n  "))
			case s.Steps.Connect.Era != "modern" || s.Steps.Connect.ProtocolVersion != "2026-07-28" || s.Steps.Connect.SessionID != nil:
				t.Errorf("client2026.mjs %s: connected %+v, want the modern era, 2026-07-28 and no session id", mode, s.Steps.Connect)
			case s.Steps.Bash.ProgressBeforeResult < 1 || !s.Steps.Cancel.ProcessGone || !s.Steps.Background.OutputRead:
				t.Errorf("client2026.mjs %s: summary says ok but progress %d, cancelled command gone %v, task output read %v",
					mode, s.Steps.Bash.ProgressBeforeResult, s.Steps.Cancel.ProcessGone, s.Steps.Background.OutputRead)
			}
		}
	})
	wg.Go(func() {
		s, out, err := runClient(t, "client.mjs", g.url, fixtureName, fixtureText)
		t.Logf("client.mjs summary:\n%s", out)
		if err != nil || !s.OK {
			t.Errorf("TypeScript SDK 1.x client (2025 session) beside the 2026 clients: %v\n  %s", err, strings.Join(s.Failures, "\n  "))
		} else if s.Steps.Initialize.ProtocolVersion != "2025-11-25" || s.Steps.Initialize.SessionID == "" {
			t.Errorf("client.mjs: initialized %+v, want 2025-11-25 and a session id", s.Steps.Initialize)
		}
	})
	wg.Wait()
	if t.Failed() {
		t.Logf("gateway log:\n%s", g.logs)
	}
}
