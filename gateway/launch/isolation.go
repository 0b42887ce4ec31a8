package launch

// Isolation is what the gateway enforces around every core (docs/reference/security.md),
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
	// PrivateRoot is true when each session's commands see only what
	// their rules grant of the file system.
	PrivateRoot bool `json:"private_root"`
}
