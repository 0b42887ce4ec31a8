package gateway

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsDefaults: a Handler built in code with no settings gets the
// defaults boris-gateway's flags have, and a setting given on the command
// line reaches it as given: the defaults are written once, in the tags of
// Settings.
func TestSettingsDefaults(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no flags", nil},
		{"some flags", []string{"--max-sessions", "8", "--replay-buffer", "2MB", "--session-idle-timeout", "1m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig(tt.args, nil, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			want := cfg.Settings.withDefaults()
			var built Options
			if tt.args != nil {
				built.MaxSessions, built.ReplayBuffer, built.IdleTimeout = 8, 2<<20, 60e9
			}
			if diff := cmp.Diff(want, withDefaults(built).Settings); diff != "" {
				t.Errorf("settings of a Handler built in code (-flags +built):\n%s", diff)
			}
		})
	}
	if o := withDefaults(Options{}); o.MaxSessions != 64 || o.MaxPerSubject != 16 || o.MaxBody != 4<<20 || o.KeepAlive != 15e9 || o.MaxBufferedTotal != 512<<20 {
		t.Errorf("defaults: got %+v, want 64 sessions, 16 per subject, a 4 MiB body, 15s keep-alive, 512 MiB held", o.Settings)
	}
}
