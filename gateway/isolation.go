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

	"github.com/mjkoo/boris/core"
	"github.com/mjkoo/boris/internal/cgroup"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Isolation is what the gateway enforces around every core (SPEC §6),
// decided at start-up, logged once and reported by /healthz.
type Isolation struct {
	// Sandbox is the Landlock confinement of the cores' commands, as
	// `boris --check` reports it for the operator's core arguments.
	Sandbox string `json:"sandbox"` // "landlock" or "none"
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int `json:"landlock_abi"`
	// Cgroup is "v2" when each session runs in a cgroup of its own that is
	// killed whole when it ends, else "off".
	Cgroup string `json:"cgroup"`
	// Limits are the per-session cgroup limits in force.
	Limits map[string]string `json:"limits,omitempty"`
	// Subreaper is true when the gateway adopts and kills whatever outlives
	// a core (and each core does the same for its commands).
	Subreaper bool `json:"subreaper"`
	// PerPrincipal is true when each principal's core is confined to its
	// own working directory (--workdir-template).
	PerPrincipal bool `json:"per_principal"`
	// Net is the cores' --sandbox-net (host, none or proxy), NetEnforced
	// what confines it ("namespace", "landlock-tcp" or "none"), and
	// PIDNamespace whether each session sees only its own processes, as
	// `boris --check` reports them.
	Net          string `json:"net"`
	NetEnforced  string `json:"net_enforced"`
	PIDNamespace bool   `json:"pid_namespace"`
}

// isolation checks the core's arguments and the secrets' exposure, and
// logs what will be enforced. It returns the secret files to deny.
func (c *Config) isolation(corePath string, environ []string, log *slog.Logger) (*Isolation, []string, error) {
	args, err := c.checkArgs()
	if err != nil {
		return nil, nil, err
	}
	rep, err := checkCore(corePath, args, coreEnv(environ))
	if err != nil {
		return nil, nil, err
	}
	secrets := c.secretFiles()
	if err := c.checkSecrets(rep, secrets, log); err != nil {
		return nil, nil, err
	}
	c.warnCommandLineTokens(log)
	iso := &Isolation{Sandbox: "none", LandlockABI: rep.Sandbox.LandlockABI, Cgroup: "off", PerPrincipal: c.WorkdirTemplate != "",
		Net: rep.Sandbox.Net, NetEnforced: rep.Sandbox.NetEnforced, PIDNamespace: rep.Sandbox.PIDNamespace}
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
func (c *Config) cgroups(iso *Isolation, log *slog.Logger) (*cgroup.Manager, error) {
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
func checkCore(path string, args, environ []string) (*core.CheckReport, error) {
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
	var rep core.CheckReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("read %s --check: %w", path, err)
	}
	return &rep, nil
}

// secretFiles are the gateway's own token and secret files, and a
// --jwt-public-key file that holds private material too, resolved: no core
// may read them (SPEC §6). Public keys are not secrets.
func (c *Config) secretFiles() []string {
	var out []string
	files := []string{c.TokenFile, c.JWTSecretFile, c.MetricsTokenFile}
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
func (c *Config) checkSecrets(rep *core.CheckReport, secrets []string, log *slog.Logger) error {
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

func sandboxWhy(rep *core.CheckReport) string {
	if rep.Sandbox.Mode == "off" {
		return "--sandbox off"
	}
	return "this kernel offers no Landlock"
}

// readableBy reports whether a core's commands could read path: never
// when no core runs commands, always when they are not confined.
func readableBy(rep *core.CheckReport, path string) bool {
	return slices.Contains(rep.Tools, "bash") && rep.Sandbox.Readable(path)
}

func readableDirs(rep *core.CheckReport) []string {
	return append(append([]string{}, rep.Sandbox.Read...), rep.Sandbox.Write...)
}

// listFlag appends values to a repeatable core flag without losing the
// operator's own: flags beat the environment in the core, so when the
// operator set the list only through its BORIS_* variable, that list is
// carried into the flags first (SPEC §6: scope-derived restrictions add to
// the operator's core flags, never replace them).
func listFlag(args, environ []string, flag, env string, values ...string) []string {
	if len(values) == 0 {
		return args
	}
	if !hasFlag(args, flag) {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, env+"="); ok {
				items, err := flagenv.SplitList(v) // as the core reads it: "**/{.env,secrets}" is one
				if err != nil {
					items = []string{v} // the core refuses it, saying why
				}
				for _, item := range items {
					args = append(args, "--"+flag, item)
				}
			}
		}
	}
	for _, v := range values {
		args = append(args, "--"+flag, v)
	}
	return args
}

// hasFlag reports whether args set --flag (or -flag, with or without =).
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name := strings.TrimLeft(a, "-")
		name, _, _ = strings.Cut(name, "=")
		if strings.HasPrefix(a, "-") && name == flag {
			return true
		}
	}
	return false
}

// scopeLists splits a principal's scope-derived core arguments into the
// --disable-tools values (merged with the operator's) and the rest.
func scopeLists(args []string) (disable, rest []string) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--disable-tools" && i+1 < len(args) {
			disable = append(disable, args[i+1])
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return disable, rest
}

// launch is how one core starts: its arguments, environment and cgroup.
type launch struct {
	args  []string
	env   []string
	group *cgroup.Group // nil: no session cgroup
}

// launchFor builds the core arguments and environment of principal p: the
// operator's core arguments, the restrictions p's scopes imply added to
// them, the gateway's secrets denied, and with --workdir-template p's own
// directory as working and allowed directory, HOME and TMPDIR (SPEC §6).
func (h *Handler) launchFor(p Principal) (launch, error) {
	environ := coreEnv(h.opts.Environ)
	disable, rest := scopeLists(p.CoreArgs)
	args := append([]string{}, h.opts.CoreArgs...)
	args = listFlag(args, environ, "disable-tools", "BORIS_DISABLE_TOOLS", disable...)
	args = append(args, rest...)
	denied := slices.Clip(h.opts.Secrets)
	for _, own := range []string{h.opts.BoardsDir, h.opts.PrincipalsDir} {
		if own != "" {
			// Boards and cores' state are reached through their tools only.
			denied = append(denied, own)
		}
	}
	args = listFlag(args, environ, "deny-dir", "BORIS_DENY_DIRS", denied...)
	db, boardArgs := h.boardOf(p, environ)
	args = append(args, boardArgs...)
	stateArgs, err := h.stateOf(p, environ)
	if err != nil {
		return launch{}, err
	}
	args = append(args, stateArgs...)
	h.obs.sawPrincipal(p, db)
	if p.Workdir == "" {
		return launch{args: args, env: environ}, nil
	}
	for _, s := range h.opts.Secrets {
		if s == p.Workdir || strings.HasPrefix(s, p.Workdir+"/") {
			return launch{}, fmt.Errorf("working directory %s holds the gateway's secret file %s", p.Workdir, s)
		}
	}
	tmp := filepath.Join(p.Workdir, ".tmp")
	for _, dir := range []string{p.Workdir, tmp} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return launch{}, fmt.Errorf("create working directory: %w", err)
		}
	}
	args = listFlag(args, environ, "allow-dir", "BORIS_ALLOW_DIRS", p.Workdir)
	args = append(args, "--workdir", p.Workdir)
	return launch{args: args, env: setEnv(environ, "HOME", p.Workdir, "TMPDIR", tmp)}, nil
}

// setEnv returns environ with the given NAME, VALUE pairs set.
func setEnv(environ []string, kv ...string) []string {
	out := make([]string, 0, len(environ)+len(kv)/2)
	for _, e := range environ {
		name, _, _ := strings.Cut(e, "=")
		replaced := false
		for i := 0; i < len(kv); i += 2 {
			replaced = replaced || name == kv[i]
		}
		if !replaced {
			out = append(out, e)
		}
	}
	for i := 0; i < len(kv); i += 2 {
		out = append(out, kv[i]+"="+kv[i+1])
	}
	return out
}
