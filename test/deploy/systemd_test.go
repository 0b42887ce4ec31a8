package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const unitPath = "deploy/systemd/boris-gateway.service"

// unit is a parsed systemd unit file: section -> key -> values in order.
type unit map[string]map[string][]string

// parseUnit reads the INI-like unit syntax systemd.syntax(7) describes:
// [Section] headers, Key=Value lines, # and ; comments, backslash line
// continuations.
func parseUnit(t *testing.T, text string) unit {
	t.Helper()
	u := unit{}
	var section, pending string
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasSuffix(line, "\\") {
			pending += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line, pending = pending+line, ""
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		case section == "":
			t.Fatalf("%s:%d: %q outside a section", unitPath, n, line)
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s:%d: %q is not Key=Value", unitPath, n, line)
			}
			key, value = strings.TrimSpace(key), strings.TrimSpace(value)
			u[section][key] = append(u[section][key], value)
		}
	}
	return u
}

// get is the last value of a key (systemd's rule for single-valued keys).
func (u unit) get(section, key string) string {
	v := u[section][key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// TestUnitDirectives checks the unit for what the deployment relies on:
// a dedicated user, sandboxing, a restart policy, a kill mode that ends the
// cores with the gateway, and an ExecStart made of real gateway flags.
func TestUnitDirectives(t *testing.T) {
	u := parseUnit(t, deployFile(t, unitPath))
	want := []struct {
		key  string
		okIf func(string) bool
		why  string
	}{
		{"User", func(v string) bool { return v != "" && v != "root" && v != "0" }, "a dedicated, unprivileged user"},
		{"Group", func(v string) bool { return v != "" && v != "root" && v != "0" }, "a dedicated group"},
		{"NoNewPrivileges", isYes, "no privilege gain through setuid binaries"},
		{"ProtectSystem", oneOf("strict", "full"), "/usr, /boot and /etc read-only at least"},
		{"ProtectHome", oneOf("yes", "read-only", "tmpfs"), "users' homes protected"},
		{"PrivateTmp", isYes, "a private /tmp"},
		{"PrivateDevices", isYes, "no raw devices"},
		{"RestrictSUIDSGID", isYes, "no setuid files created"},
		// Only what a session's spawner needs inside its own user namespace
		// (see the unit's comment); the gateway holds none of them.
		{"CapabilityBoundingSet", func(v string) bool {
			return !slices.ContainsFunc(strings.Fields(v), func(c string) bool {
				return !slices.Contains([]string{"CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETPCAP"}, c)
			})
		}, "no capabilities beyond those a session's user namespace needs"},
		{"AmbientCapabilities", func(v string) bool { return v == "" }, "no ambient capabilities: the gateway holds none"},
		{"Restart", oneOf("on-failure", "always", "on-abnormal"), "restarted when it fails"},
		// mixed: SIGTERM to the gateway alone (it drains and ends its cores),
		// then SIGKILL to all that is left in the cgroup.
		{"KillMode", oneOf("mixed", "control-group"), "every core and command ends with the gateway"},
		{"EnvironmentFile", func(v string) bool { return strings.HasPrefix(strings.TrimPrefix(v, "-"), "/etc/") }, "settings from a file under /etc"},
		// docs/reference/security.md: secrets as credentials, out of the environment and out
		// of every sandbox-readable directory.
		{"LoadCredential", func(v string) bool { return strings.HasPrefix(v, "tokens:/etc/") }, "the token file handed over as a systemd credential"},
		{"ExecStart", func(v string) bool { return strings.Contains(v, "--token-file ${CREDENTIALS_DIRECTORY}/") }, "--token-file read from the credentials directory"},
		// A cgroup subtree of its own, so each session gets a cgroup.
		{"Delegate", func(v string) bool { return v != "" && v != "no" && v != "false" }, "a delegated cgroup subtree for per-session cgroups"},
	}
	if v, ok := u["Service"]["ProtectControlGroups"]; ok && isYes(v[len(v)-1]) {
		t.Errorf("ProtectControlGroups=%s: want it off, it makes the delegated subtree read-only", v[len(v)-1])
	}
	for _, w := range want {
		vals, ok := u["Service"][w.key]
		if !ok {
			t.Errorf("[Service] %s missing: want %s", w.key, w.why)
			continue
		}
		if v := vals[len(vals)-1]; !w.okIf(v) {
			t.Errorf("[Service] %s=%s: want %s", w.key, v, w.why)
		}
	}
	if got := u.get("Install", "WantedBy"); got != "multi-user.target" {
		t.Errorf("[Install] WantedBy=%s, want multi-user.target", got)
	}

	gw := settings(t, gatewayBin)
	stop, err := time.ParseDuration(u.get("Service", "TimeoutStopSec"))
	drain, derr := time.ParseDuration(gw["shutdown-timeout"].def)
	if err != nil || derr != nil || stop <= drain+5*time.Second {
		t.Errorf("TimeoutStopSec=%s: want longer than the gateway's --shutdown-timeout (%s) plus a core's 5 s kill grace",
			u.get("Service", "TimeoutStopSec"), gw["shutdown-timeout"].def)
	}
	checkExecStart(t, u.get("Service", "ExecStart"), gw)
}

// checkExecStart: the gateway binary, only flags it has, and values it
// accepts (--version parses and validates every setting, then exits).
func checkExecStart(t *testing.T, execStart string, gw map[string]setting) {
	t.Helper()
	fields := strings.Fields(execStart)
	if len(fields) == 0 || filepath.Base(fields[0]) != "boris-gateway" {
		t.Fatalf("ExecStart=%s: want /path/to/boris-gateway [flags]", execStart)
	}
	args := fields[1:]
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") {
			if _, ok := gw[name]; !ok {
				t.Errorf("ExecStart flag %s is not a boris-gateway setting", a)
			}
		}
	}
	cmd := exec.Command(gatewayBin, append(slices.Clone(args), "--version")...)
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("boris-gateway %s --version: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestUnitUsesEnvExample: the paths the unit and the env example name agree.
func TestUnitUsesEnvExample(t *testing.T) {
	u := parseUnit(t, deployFile(t, unitPath))
	env := parseEnvFile(t, deployFile(t, envExamplePath))
	workdir := env.active["BORIS_WORKDIR"]
	if workdir == "" {
		t.Fatalf("%s sets no BORIS_WORKDIR", envExamplePath)
	}
	writable := slices.Clone(u["Service"]["ReadWritePaths"])
	for _, d := range u["Service"]["StateDirectory"] {
		writable = append(writable, "/var/lib/"+d)
	}
	if !slices.ContainsFunc(writable, func(dir string) bool { return within(workdir, strings.TrimPrefix(dir, "-")) }) {
		t.Errorf("BORIS_WORKDIR=%s is outside the unit's writable paths %v (ProtectSystem=strict makes the rest read-only)", workdir, writable)
	}
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// TestUnitVerifies runs systemd-analyze verify on the unit, with ExecStart's
// binaries pointed at the ones built for this test (verify insists they
// exist). Any warning about the unit fails: verify exits 0 on unknown keys.
func TestUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (Debian package systemd); TestUnitDirectives still checks the unit statically")
	}
	text := deployFile(t, unitPath)
	for _, r := range []struct{ from, to string }{
		{"/usr/local/bin/boris-gateway", gatewayBin}, // first: it contains the next
		{"/usr/local/bin/boris", borisBin},
	} {
		if !strings.Contains(text, r.from) {
			t.Fatalf("%s no longer mentions %q: update this test's substitutions", unitPath, r.from)
		}
		text = strings.ReplaceAll(text, r.from, r.to)
	}
	path := filepath.Join(t.TempDir(), "boris-gateway.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", path).CombinedOutput()
	var problems []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "boris-gateway.service") {
			problems = append(problems, line)
		}
	}
	if err != nil || len(problems) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unitPath, err, strings.Join(problems, "\n"))
	}
}

func isYes(v string) bool { return oneOf("yes", "true", "on", "1")(v) }

func oneOf(vals ...string) func(string) bool {
	return func(v string) bool { return slices.Contains(vals, v) }
}
