package deploy

import (
	"bufio"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const envExamplePath = "deploy/boris-gateway.env.example"

// envFile is a parsed environment file: the variables it sets, and the ones
// it offers commented out ("#NAME=value") for the operator to enable.
type envFile struct {
	active, commented map[string]string
}

var envLineRE = regexp.MustCompile(`^(#\s*)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// parseEnvFile reads systemd's EnvironmentFile syntax as the example uses
// it: NAME=value lines, # comments.
func parseEnvFile(t *testing.T, text string) envFile {
	t.Helper()
	f := envFile{active: map[string]string{}, commented: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := envLineRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		switch {
		case m == nil:
		case m[1] == "":
			f.active[m[2]] = m[3]
		default:
			f.commented[m[2]] = m[3]
		}
	}
	if len(f.active) == 0 {
		t.Fatalf("%s sets no variables", envExamplePath)
	}
	return f
}

// TestEnvExampleNames: every variable in the example, set or commented out,
// is one the binaries read. Unknown variables are ignored silently, so a
// misspelt one would be a setting that never takes effect.
func TestEnvExampleNames(t *testing.T) {
	f := parseEnvFile(t, deployFile(t, envExamplePath))
	gateway, core := envNames(settings(t, gatewayBin)), envNames(settings(t, borisBin))
	var names []string
	for name := range f.active {
		names = append(names, name)
	}
	for name := range f.commented {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, "BORIS_GATEWAY_"):
			if !gateway[name] {
				t.Errorf("%s: %s is not a boris-gateway setting (see boris-gateway --help)", envExamplePath, name)
			}
		case strings.HasPrefix(name, "BORIS_"):
			if !core[name] {
				t.Errorf("%s: %s is not a boris setting (see boris --help); cores get BORIS_* but not BORIS_GATEWAY_*", envExamplePath, name)
			}
		default:
			t.Errorf("%s: %s is neither a boris-gateway nor a boris setting", envExamplePath, name)
		}
	}
	for _, want := range []string{"BORIS_GATEWAY_PUBLIC_URL", "BORIS_GATEWAY_TRUSTED_PROXIES", "BORIS_GATEWAY_LISTEN"} {
		if _, ok := f.active[want]; !ok {
			t.Errorf("%s does not set %s, which a deployment behind a proxy needs", envExamplePath, want)
		}
	}
	// The multi-user recipe (docs/reference/security.md): a directory per principal, confined.
	if !strings.Contains(f.active["BORIS_GATEWAY_WORKDIR_TEMPLATE"], "{sub}") {
		t.Errorf("%s: BORIS_GATEWAY_WORKDIR_TEMPLATE=%q, want a per-principal {sub} directory", envExamplePath, f.active["BORIS_GATEWAY_WORKDIR_TEMPLATE"])
	}
	// Secrets never in the environment (the unit loads them as credentials).
	for _, secret := range []string{"BORIS_GATEWAY_TOKENS", "BORIS_GATEWAY_JWT_SECRET"} {
		if _, ok := f.active[secret]; ok {
			t.Errorf("%s sets %s: want secrets in systemd credentials, never in the environment", envExamplePath, secret)
		}
	}
}

// TestEnvExampleValues: the gateway accepts the example's values, as given
// and with every optional line enabled. `--version` parses and validates
// every setting, then exits before reading token files or binding a port.
func TestEnvExampleValues(t *testing.T) {
	f := parseEnvFile(t, deployFile(t, envExamplePath))
	for _, tc := range []struct {
		name string
		vars map[string]string
	}{
		{"as shipped", f.active},
		{"all enabled", merge(f.active, f.commented)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			for k, v := range tc.vars {
				env = append(env, k+"="+v)
			}
			cmd := exec.Command(gatewayBin, "--version")
			cmd.Env = cleanEnv(env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("boris-gateway --version with %s: %v\n%s", envExamplePath, err, out)
			}
		})
	}
}

func merge(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
