package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mjkoo/boris/core/corecheck"
	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/internal/cgroup"
)

// isolation checks the core's arguments and the secrets' exposure, and
// logs what will be enforced. It returns the secret files to deny.
func (c *Config) isolation(corePath string, environ []string, log *slog.Logger) (*launch.Isolation, []string, error) {
	args, err := c.checkArgs()
	if err != nil {
		return nil, nil, err
	}
	rep, err := checkCore(corePath, args, launch.CoreEnv(environ))
	if err != nil {
		return nil, nil, err
	}
	secrets := c.secretFiles()
	if err := c.checkSecrets(rep, secrets, log); err != nil {
		return nil, nil, err
	}
	c.warnCommandLineTokens(log)
	iso := &launch.Isolation{Sandbox: "none", LandlockABI: rep.Sandbox.LandlockABI, Cgroup: "off", PerPrincipal: c.WorkdirTemplate != "",
		Net: rep.Sandbox.Net, NetEnforced: rep.Sandbox.NetEnforced, PIDNamespace: rep.Sandbox.PIDNamespace,
		PrivateRoot: rep.Sandbox.PrivateRoot}
	if rep.Sandbox.NotEnforced != "" && slices.Contains(rep.Tools, "bash") {
		log.Warn("cores' commands run without namespaces of their own: sessions see each other's processes and share the host's network beyond what Landlock's TCP rules stop",
			"net", rep.Sandbox.Net, "net_enforced", rep.Sandbox.NetEnforced, "why", rep.Sandbox.NotEnforced)
	}
	if rep.Sandbox.Enforced {
		iso.Sandbox = "landlock"
	} else if slices.Contains(rep.Tools, "bash") {
		log.Warn("cores' commands are not confined: each can read and write whatever the gateway's user can", "sandbox", rep.Sandbox.Mode)
	}
	return iso, secrets, nil
}

// cgroups opens the per-session cgroup manager --cgroups asks for: nil with
// off, or with auto where cgroup v2 cannot be used; an error with required
// there, and whenever a limit is asked for that cannot be enforced.
func (c *Config) cgroups(iso *launch.Isolation, log *slog.Logger) (*cgroup.Manager, error) {
	limits := cgroup.Limits{PidsMax: c.SessionPidsMax, MemoryMax: int64(c.SessionMemoryMax), CPUWeight: c.SessionCPUWeight}
	hasLimits := limits != (cgroup.Limits{})
	if c.Cgroups == "off" {
		if hasLimits {
			return nil, usage("--session-pids-max, --session-memory-max and --session-cpu-weight need session cgroups; they conflict with --cgroups off")
		}
		return nil, nil
	}
	m, err := cgroup.Open(cgroup.Options{Root: c.CgroupRoot, Limits: limits, Logger: log})
	switch {
	case err == nil:
	case errors.Is(err, cgroup.ErrNotOwned) && c.Cgroups == "auto" && !hasLimits:
		// Something the operator can fix: say it louder than a host
		// without cgroups.
		log.Warn("sessions run without cgroups of their own; cores kill what their commands leave behind (subreaper)", "reason", err)
		return nil, nil
	case errors.Is(err, cgroup.ErrUnavailable) && c.Cgroups == "auto" && !hasLimits:
		log.Info("sessions run without cgroups of their own; cores kill what their commands leave behind (subreaper)", "reason", err)
		return nil, nil
	default:
		return nil, usage("session cgroups (--cgroups %s): %v", c.Cgroups, err)
	}
	info := m.Info()
	iso.Cgroup = "v2"
	iso.Limits = map[string]string{}
	if limits.PidsMax > 0 {
		iso.Limits["pids_max"] = strconv.FormatInt(limits.PidsMax, 10)
	}
	if limits.MemoryMax > 0 {
		iso.Limits["memory_max"] = c.SessionMemoryMax.String()
	}
	if limits.CPUWeight > 0 {
		iso.Limits["cpu_weight"] = strconv.Itoa(limits.CPUWeight)
	}
	log.Debug("session cgroups", "path", info.Path, "controllers", info.Controllers)
	return m, nil
}

// warnCommandLineTokens warns when tokens were given as --token
// arguments: /proc/PID/cmdline (what ps shows) is readable by every
// process of the host, confined or not, so any local user or command can
// read them there.
func (c *Config) warnCommandLineTokens(log *slog.Logger) {
	if !c.tokenArgs {
		return
	}
	log.Warn("tokens given as --token are visible to every process on this host (ps, /proc/PID/cmdline); " +
		"use --token-file (e.g. a systemd credential) or BORIS_GATEWAY_TOKENS instead")
}

// checkCore runs `boris --check` with the given arguments and environment:
// a bad core setting stops the gateway at start-up with the core's own
// message, instead of failing every session later.
func checkCore(path string, args, environ []string) (*corecheck.Report, error) {
	cmd := exec.Command(path, append(append([]string{}, args...), "--check")...)
	cmd.Env = environ
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, usage("the core refuses its arguments (%s --check): %s", path, msg)
	}
	var rep corecheck.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("read %s --check: %w", path, err)
	}
	return &rep, nil
}

// secretFiles are the gateway's own token and secret files, and a
// --jwt-public-key file that holds private material too, resolved: no core
// may read them (docs/reference/security.md). Public keys are not secrets.
func (c *Config) secretFiles() []string {
	var out []string
	files := []string{c.TokenFile, c.JWTSecretFile, c.MetricsTokenFile}
	if c.TasksDBPerPrincipal {
		// The operator's role provisions principals' roles: no core needs
		// its password, and none may read it.
		files = append(files, c.TasksDBPasswordFile)
	}
	for _, p := range c.JWTPublicKeys {
		// A public key is public: cores may read it. A file that also
		// holds private material (a key pair in one PEM file) is not.
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte("PRIVATE KEY")) {
			files = append(files, p)
		}
	}
	for _, p := range files {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if res, err := filepath.EvalSymlinks(abs); err == nil {
			abs = res
		}
		out = append(out, abs)
	}
	return out
}

// checkArgs are the core arguments --check runs with: the operator's, plus,
// with --workdir-template, the directory holding every principal's
// directory as the allowed one. That over-approximates what any one core
// may read, which is what the secrets check needs: a secret under the
// template's root could be some principal's working directory.
func (c *Config) checkArgs() ([]string, error) {
	args := append([]string{}, c.CoreArgs...)
	if c.egressDir != "" {
		// Each core gets a door of its own; the check needs one to name.
		args = append(args, "--egress-socket", filepath.Join(c.egressDir, "check.sock"))
	}
	root := c.templateRoot()
	if root == "" {
		return args, nil
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, usage("invalid value %q for --workdir-template: %v", c.WorkdirTemplate, err)
	}
	return append(args, "--allow-dir", root), nil
}

// templateRoot is the directory above the first path element holding
// {sub}, or "" without a template.
func (c *Config) templateRoot() string {
	if c.WorkdirTemplate == "" {
		return ""
	}
	before, _, _ := strings.Cut(c.WorkdirTemplate, "{sub}")
	return filepath.Dir(filepath.Clean(before + "x"))
}

// checkSecrets refuses a configuration in which a core's commands could
// read one of the gateway's secret files: Landlock grants whole
// directories, so a deny rule cannot protect a file under a readable one.
func (c *Config) checkSecrets(rep *corecheck.Report, secrets []string, log *slog.Logger) error {
	var exposed []string
	for _, s := range secrets {
		if readableBy(rep, s) {
			exposed = append(exposed, s)
		}
	}
	switch {
	case len(exposed) == 0:
		return nil
	case c.AllowReadableSecret:
		log.Warn("cores' commands can read the gateway's secret files (--allow-readable-secrets)", "files", exposed)
		return nil
	case !rep.Sandbox.Enforced:
		return usage("cores' commands are not confined (%s), so they could read %s; enable Landlock, disable bash for every core, or accept it with --allow-readable-secrets",
			sandboxWhy(rep), strings.Join(exposed, ", "))
	}
	return usage("cores' commands could read %s (under a directory they may read: %s); move the files (e.g. to systemd credentials, LoadCredential=), narrow --workdir-template or --allow-dir, or accept it with --allow-readable-secrets",
		strings.Join(exposed, ", "), strings.Join(readableDirs(rep), ", "))
}

func sandboxWhy(rep *corecheck.Report) string {
	if rep.Sandbox.Mode == "off" {
		return "--sandbox off"
	}
	return "this kernel offers no Landlock"
}

// readableBy reports whether a core's commands could read path: never
// when no core runs commands, always when they are not confined.
func readableBy(rep *corecheck.Report, path string) bool {
	return slices.Contains(rep.Tools, "bash") && rep.Sandbox.Readable(path)
}

func readableDirs(rep *corecheck.Report) []string {
	return append(append([]string{}, rep.Sandbox.Read...), rep.Sandbox.Write...)
}
