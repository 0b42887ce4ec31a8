package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/mjkoo/boris/test/bench/benchkit"
)

// setup is one isolation configuration under test.
type setup struct {
	stdio   bool // boris over stdio, no gateway (bash calls only)
	sandbox bool // the core runs with --sandbox auto, else --sandbox off
	cgroups bool // the gateway runs with --cgroups auto, else --cgroups off
	// net is the gateway's --sandbox-net: "" is host (the four sandbox
	// and cgroup combinations measure without namespaces), else none or
	// proxy (with the sandbox and cgroups on).
	net string
}

// allSetups returns the configurations of a run, in the report's order:
// the four gateway combinations, the baseline (neither) first, then direct
// stdio with the sandbox off and on, then the gateway with the sandbox and
// cgroups on and each session in namespaces of its own (--sandbox-net none
// and proxy), against the fourth (host).
func allSetups() []setup {
	return []setup{
		{}, {sandbox: true}, {cgroups: true}, {sandbox: true, cgroups: true},
		{stdio: true}, {stdio: true, sandbox: true},
		netSetup("none"), netSetup("proxy"),
	}
}

// netSetup is the gateway with the sandbox and cgroups on and --sandbox-net net.
func netSetup(net string) setup { return setup{sandbox: true, cgroups: true, net: net} }

// netArg is the gateway's --sandbox-net value.
func (s setup) netArg() string {
	if s.net == "" {
		return "host"
	}
	return s.net
}

// name labels the configuration in the table and the JSON:
// "gateway  sandbox on   cgroups off", "stdio    sandbox off".
func (s setup) name() string {
	if s.stdio {
		return fmt.Sprintf("stdio    sandbox %-3s", onOff(s.sandbox))
	}
	if s.net != "" {
		return fmt.Sprintf("gateway  net %-5s sandbox+cgroups", s.net)
	}
	return fmt.Sprintf("gateway  sandbox %-3s  cgroups %s", onOff(s.sandbox), onOff(s.cgroups))
}

// sandboxArg is the core's --sandbox value.
func (s setup) sandboxArg() string { return autoOff(s.sandbox) }

// cgroupsArg is the gateway's --cgroups value.
func (s setup) cgroupsArg() string { return autoOff(s.cgroups) }

// autoOff maps on to "auto" (what a user gets by default), off to "off".
func autoOff(on bool) string {
	if on {
		return "auto"
	}
	return "off"
}

// onOff words a boolean setting.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// binaries are the programs under test.
type binaries struct {
	boris   string // the core, built from ./cmd/boris
	gateway string // boris-gateway, built from ./cmd/boris-gateway
}

// build builds boris and boris-gateway into the workspace, side by side.
func build(ctx context.Context, ws *benchkit.Workspace) (binaries, error) {
	var bins binaries
	var err error
	if bins.boris, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris"); err != nil {
		return bins, err
	}
	bins.gateway, err = benchkit.Build(ctx, ws.Root, ws.Dir, "boris-gateway")
	return bins, err
}

// environment describes the machine and what the kernel offers.
type environment struct {
	GoVersion string `json:"go"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	Kernel    string `json:"kernel"`
	// LandlockABI and SandboxEnforced are what `boris --sandbox auto
	// --check` reports: the ABI the rules use, and whether commands are
	// confined at all (false on a kernel without Landlock).
	LandlockABI     int  `json:"landlock_abi"`
	SandboxEnforced bool `json:"sandbox_enforced"`
}

// String formats the environment as the report's first line begins.
func (e environment) String() string {
	s := fmt.Sprintf("%s %s/%s, %d CPUs; kernel %s; ", e.GoVersion, e.OS, e.Arch, e.CPUs, e.Kernel)
	if !e.SandboxEnforced {
		return s + "no Landlock (boris --check: sandbox not enforced)"
	}
	return s + fmt.Sprintf("Landlock ABI %d (boris --check)", e.LandlockABI)
}

// describeEnvironment collects the Go, OS and CPU facts, the kernel
// release and what `boris --check` says the sandbox would enforce.
func describeEnvironment(ctx context.Context, boris, dir string) (environment, error) {
	env := environment{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		env.Kernel = strings.TrimSpace(string(rel))
	}
	cmd := exec.CommandContext(ctx, boris, "--workdir", dir, "--sandbox", "auto", "--check")
	cmd.Env = coreEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return env, fmt.Errorf("run boris --check: %w", err)
	}
	var rep struct {
		Sandbox struct {
			Enforced    bool `json:"enforced"`
			LandlockABI int  `json:"landlock_abi"`
		} `json:"sandbox"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return env, fmt.Errorf("read boris --check: %w", err)
	}
	env.LandlockABI, env.SandboxEnforced = rep.Sandbox.LandlockABI, rep.Sandbox.Enforced
	return env, nil
}

// coreEnv drops BORIS_* settings (BORIS_GATEWAY_* included) from environ:
// every configuration runs with its defaults and the flags the benchmark
// gives, whatever the caller's shell holds (BORIS_DISABLE_TOOLS=bash
// would otherwise end the run).
func coreEnv(environ []string) []string { return benchkit.WithoutEnv(environ, "BORIS_") }
