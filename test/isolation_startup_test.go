package test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// isoNoLandlock makes the core see a kernel without Landlock.
const isoNoLandlock = "BORIS_SANDBOX_LANDLOCK_ABI=0"

// isoRunGateway runs boris-gateway, expected to stop at start-up, and returns
// its stderr and exit code; one still running after 20 s fails the test.
func isoRunGateway(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gatewayBin(t), append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = cleanEnv(env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("boris-gateway %v: still running after 20 s, want a refusal at start-up; log:\n%s", args, stderr.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("boris-gateway %v: %v", args, err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode()
}

// TestIsolationSandboxRequired: on a kernel without Landlock (simulated by
// the core's ABI override), --sandbox required stops the core and the
// gateway at start-up, naming Landlock; auto logs a warning and runs
// commands unconfined. Needs no Landlock itself.
func TestIsolationSandboxRequired(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	outside := filepath.Join(realTempDir(t), "outside.txt")
	writeFile(t, outside, "outside the allowed directory\n")
	core := []string{"--workdir", dir, "--allow-dir", dir}

	t.Run("boris --sandbox required refuses to start", func(t *testing.T) {
		t.Parallel()
		_, stderr, code := runBoris(t, []string{isoNoLandlock}, append(core, "--sandbox", "required")...)
		if code != 2 || !strings.Contains(strings.ToLower(stderr), "landlock") {
			t.Errorf("got exit %d, stderr %q; want exit 2 and a message naming Landlock", code, stderr)
		}
	})
	t.Run("boris-gateway -- --sandbox required refuses to start", func(t *testing.T) {
		t.Parallel()
		stderr, code := isoRunGateway(t, []string{isoNoLandlock}, append([]string{"--auth", "none", "--"}, append(core, "--sandbox", "required")...)...)
		if code != 2 || !strings.Contains(strings.ToLower(stderr), "landlock") {
			t.Errorf("got exit %d, stderr %q; want exit 2 and a message naming Landlock", code, stderr)
		}
	})
	t.Run("boris --sandbox auto warns and runs", func(t *testing.T) {
		t.Parallel()
		c := startCoreWith(t, coreOptions{args: append(core, "--sandbox", "auto"), env: []string{isoNoLandlock}})
		if out := c.ok("bash", map[string]any{"command": "cat " + outside}); !strings.Contains(out, "outside the allowed directory") {
			t.Errorf("bash cat of a file outside the allowed directory: got %q, want its contents (unconfined)", out)
		}
		waitFor(t, "a warning naming Landlock on stderr", func() bool {
			for line := range strings.Lines(c.stderr.String()) {
				if strings.Contains(line, "level=WARN") && strings.Contains(line, "Landlock") {
					return true
				}
			}
			return false
		})
	})
	t.Run("boris-gateway -- --sandbox auto warns and runs", func(t *testing.T) {
		t.Parallel()
		args := append(isoCgroupRoot(t), "--auth", "none", "--")
		g := startAuthGateway(t, []string{isoNoLandlock}, append(args, append(core, "--sandbox", "auto")...)...)
		if h, ok := isoHealthOf(t, g); !ok || h.Sandbox != "none" || h.LandlockABI != 0 {
			t.Errorf("/healthz isolation: got %+v (answered: %v), want sandbox none, landlock_abi 0", h, ok)
		}
		if log := g.stderr.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, "not confined") {
			t.Errorf("gateway log: got %q, want a warning that commands are not confined", log)
		}
		s := &isoSession{ClientSession: isoConnect(t, g.url, "")}
		if out := isoBash(t, s, "cat "+outside); !strings.Contains(out, "outside the allowed directory") {
			t.Errorf("bash cat of a file outside the allowed directory: got %q, want its contents (unconfined)", out)
		}
	})
}

// TestIsolationReadableSecrets: the gateway refuses to start when a core's
// commands could read its token file or JWT secret (under the template
// root, or under a directory the cores may read, as /etc is), naming the
// file, and starts with --allow-readable-secrets.
func TestIsolationReadableSecrets(t *testing.T) {
	t.Parallel()
	if !landlockAvailable() {
		t.Skip("this kernel offers no Landlock (landlock_create_ruleset fails): the gateway refuses every multi-user set-up with bash, wherever its secrets are")
	}
	tests := []struct {
		name string
		// place returns the token file and the JWT secret file, given a
		// fresh template root and a directory outside it, and core flags.
		place func(root, outside string) (tokens, secret string, core []string)
		want  string // "tokens" or "secret": the file the refusal names
	}{
		{"token file under the template root", func(root, outside string) (string, string, []string) {
			return filepath.Join(root, "tokens"), filepath.Join(outside, "jwt-secret"), nil
		}, "tokens"},
		{"JWT secret under the template root", func(root, outside string) (string, string, []string) {
			return filepath.Join(outside, "tokens"), filepath.Join(root, "jwt-secret"), nil
		}, "secret"},
		{"token file under a directory cores may read (--sandbox-read)", func(root, outside string) (string, string, []string) {
			return filepath.Join(outside, "tokens"), filepath.Join(root+"-secret", "jwt-secret"), []string{"--", "--sandbox-read", outside}
		}, "tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := realTempDir(t)
			root := filepath.Join(tmp, "work")
			f := isoFixture{}
			var core []string
			f.tokenFile, f.secretFile, core = tt.place(root, filepath.Join(tmp, "etc-like"))
			writeFile(t, f.tokenFile, "alice="+authAlice+"\n")
			writeFile(t, f.secretFile, authSecret)
			named := map[string]string{"tokens": f.tokenFile, "secret": f.secretFile}[tt.want]

			stderr, code := isoRunGateway(t, nil, append(f.args(root), core...)...)
			if code != 2 || !strings.Contains(stderr, named) {
				t.Errorf("got exit %d, stderr %q; want exit 2 and a message naming %s", code, stderr, named)
			}
			g := startAuthGateway(t, nil, append(f.args(root, append(isoCgroupRoot(t), "--allow-readable-secrets")...), core...)...)
			if log := g.stderr.String(); !strings.Contains(log, "level=WARN") || !strings.Contains(log, named) {
				t.Errorf("gateway log with --allow-readable-secrets: got %q, want a warning naming %s", log, named)
			}
		})
	}
}
