package extension

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunsThroughBash(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		mode       os.FileMode
		viaBash    bool
		err        string
	}{
		{"tool.sh", "#!/usr/bin/env bash\necho hi\n", 0o755, false, ""},
		{"tool.sh", "#!/usr/bin/env bash\necho hi\n", 0o644, true, ""},
		{"tool.sh", "echo no shebang\n", 0o644, true, ""},               // the .sh name is enough
		{"tool.bash", "echo no shebang\n", 0o600, true, ""},             // so is .bash
		{"tool", "#!/usr/bin/env python3\nprint(1)\n", 0o644, true, ""}, // any #! line, run through bash as the framework does
		{"tool", "#!/bin/sh\n", 0o444, true, ""},
		{"tool.py", "print(1)\n", 0o644, false, "not executable and not a script"},
		{"tool", "", 0o644, false, "not executable and not a script"},
		{"tool", "#", 0o644, false, "not executable and not a script"},
		{"tool", " #!/bin/sh\n", 0o644, false, "not executable and not a script"},
		{"tool", "binary\x00", 0o755, false, ""},
	} {
		t.Run(tc.name+" "+tc.mode.String(), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(p, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tc.mode); err != nil {
				t.Fatal(err)
			}
			got, err := RunsThroughBash(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("RunsThroughBash: got %v, %v; want an error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.viaBash {
				t.Errorf("RunsThroughBash: got %v, %v; want %v", got, err, tc.viaBash)
			}
		})
	}
}

func TestRunsThroughBashRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := RunsThroughBash(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: got %v, want it refused", err)
	}
	if _, err := RunsThroughBash(filepath.Join(dir, "missing.sh")); err == nil {
		t.Error("a missing file: want an error")
	}
}
