package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: a profile's blocks are summed per toolset package, blocks of
// other packages are left out, a toolset under the floor is marked and
// is an error, and so is a profile without toolsets or a missing one.
func TestRun(t *testing.T) {
	const mode = "mode: atomic\n"
	for _, tt := range []struct {
		name    string
		profile string
		want    []string // lines of the output
		wantErr string
	}{
		{
			name: "two toolsets and the kit",
			profile: mode +
				"github.com/mjkoo/boris/core/tools/boris/bash.go:1.1,2.2 3 1\n" +
				"github.com/mjkoo/boris/core/tools/boris/view.go:1.1,2.2 1 0\n" +
				"github.com/mjkoo/boris/core/tools/tracking/tasks.go:1.1,2.2 2 0\n" +
				"github.com/mjkoo/boris/core/toolkit/tool.go:1.1,2.2 50 0\n",
			want: []string{
				"  boris         75.0 %     3 of    4",
				"  tracking       0.0 %     0 of    2  (below 70 %)",
			},
			wantErr: "tracking below 70 %",
		},
		{
			name: "every toolset over the floor",
			profile: mode +
				"github.com/mjkoo/boris/core/tools/boris/bash.go:1.1,2.2 3 1\n" +
				"github.com/mjkoo/boris/core/tools/boris/view.go:1.1,2.2 1 0\n" +
				"github.com/mjkoo/boris/core/toolkit/tool.go:1.1,2.2 50 0\n",
			want: []string{"  boris         75.0 %     3 of    4"},
		},
		{name: "no toolset", profile: mode + "github.com/mjkoo/boris/core/scope/walk.go:1.1,2.2 3 1\n", wantErr: "no toolset package"},
		{name: "missing", wantErr: "read coverage profile"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cover.out")
			if tt.profile != "" {
				if err := os.WriteFile(path, []byte(tt.profile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := run(path, &out)
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("got error %v, want one with %q", err, tt.wantErr)
			}
			if tt.wantErr == "" && err != nil {
				t.Fatalf("run: %v", err)
			}
			for _, line := range tt.want {
				if !strings.Contains(out.String(), line+"\n") {
					t.Errorf("output lacks %q:\n%s", line, out.String())
				}
			}
			if strings.Contains(out.String(), "toolkit") {
				t.Errorf("output counts the kit:\n%s", out.String())
			}
		})
	}
}
