// Package sandbox provides the kernel confinement of every command the
// Boris core starts (docs/reference/security.md): the same allowed directories that scope the
// file tools become Linux Landlock rules for the shell and everything it
// runs, so a command can read and write only what the file tools could, plus
// the system directories a toolchain needs and a private temporary directory.
//
// Landlock restricts the whole calling process and all it starts afterwards,
// so the core never restricts itself: it starts each command through a
// re-exec of its own binary (the helper, see RunHelper) that restricts
// itself and then execs the shell in its place. The process id, process
// group and parent stay those the core started.
//
// Besides paths, the helper enables Landlock's IPC scoping (ABI 6): a
// command cannot signal, nor connect to abstract UNIX sockets of, processes
// outside its own domain: the core, the gateway, other sessions. Landlock's
// ptrace rule (every ABI) keeps it from inspecting them through /proc
// (environ, mem, fd, cwd, root).
//
// What Landlock cannot express: rules that depend on the file name inside a
// granted directory (deny globs such as **/.env under an allowed directory).
//
// Network and processes (--sandbox-net, see internal/netns): with none or
// proxy, the spawner is born in namespaces of its own (PID, IPC, mount,
// network), so a session's commands see only their own processes and
// reach only their own loopback, plus, with proxy, the gateway's egress
// proxy through a bridge on that loopback. In its mount namespace the
// spawner builds a private root from its rules (netns.PrivateRoot): a
// path the rules do not grant is not there at all, which also keeps
// other tenants' Unix sockets (which Landlock checks only from ABI 9)
// and the egress socket out of reach. Landlock's TCP rules (ABI 4)
// are not used beside the namespaces: they name ports, not addresses, so
// any rule strict enough to matter would also cut a session off from its
// own servers on its own loopback, which the namespace already keeps
// private. Where namespaces cannot be made (--sandbox auto), they are the
// fallback: no TCP connect at all but to the bridge (and Boris's own git,
// which never needs the network, gets no TCP connect wherever the mode is
// not host).
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mjkoo/boris/internal/netns"
)

// Modes of --sandbox.
const (
	ModeAuto     = "auto"     // enforce when the kernel supports Landlock
	ModeRequired = "required" // refuse to start without Landlock
	ModeOff      = "off"      // never confine commands
)

// HelperArg is the first argument that turns the boris binary into the
// sandbox helper instead of the MCP server.
const HelperArg = "__boris-sandbox-exec"

// ErrUnavailable is wrapped when --sandbox required meets a kernel without
// Landlock.
var ErrUnavailable = errors.New("landlock is not available")

// abiOverrideEnv, when set to a number, replaces the kernel's Landlock ABI
// version as the core sees it. It exists so that tests (and operators
// checking their configuration) can see how the core behaves on a kernel
// without Landlock; it can only lower what is enforced.
const abiOverrideEnv = "BORIS_SANDBOX_LANDLOCK_ABI"

// SystemReadDirs are the directories every command may read and execute
// from: what shells, compilers and interpreters need. They hold no user
// data. Missing ones are skipped.
var SystemReadDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/proc", "/sys", "/nix/store",
	"/run/systemd/resolve", // where /etc/resolv.conf points under systemd-resolved
}

// DeviceFiles are the device nodes every command may read and write.
// /dev as a whole is not granted: /dev/shm and /dev/pts are shared with
// every other user of the host.
var DeviceFiles = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
}

// Spec is what commands may touch.
type Spec struct {
	Read      []string `json:"read"`       // directories to read and execute from
	ReadFiles []string `json:"read_files"` // single files to read
	Write     []string `json:"write"`      // directories to read, write and execute in
	Files     []string `json:"files"`      // single files (device nodes) to read and write
	// DenyTCP forbids TCP connects (Landlock ABI 4) except to TCPPorts.
	DenyTCP  bool  `json:"deny_tcp,omitempty"`
	TCPPorts []int `json:"tcp_ports,omitempty"`
}

// homeConfig are the user's settings files commands may read (not write)
// even when $HOME is not otherwise readable: without them git refuses to
// run at all ("unable to access ~/.gitconfig").
var homeConfig = []string{".gitconfig", ".config/git"}

// Options configure New.
type Options struct {
	Mode string // ModeAuto, ModeRequired or ModeOff; "" means auto
	// Allowed are the file tools' allowed directories, resolved; nil means
	// the whole file system (then the sandbox restricts IPC only).
	Allowed []string
	// ExtraRead and ExtraWrite are --sandbox-read and --sandbox-write.
	ExtraRead, ExtraWrite []string
	// MakeTempDir gives the session a private temporary directory (under
	// the environment's TMPDIR), writable by commands and given to them as
	// TMPDIR; Close removes it. New chooses its name; Prepare, which runs
	// before the first command, makes it. Sweep removes the directories
	// of earlier cores under the same TMPDIR that were killed before
	// their Close (see sweepTempDirs).
	MakeTempDir bool
	// Environ is the core's environment, read for the ABI override.
	Environ []string
	// Net is --sandbox-net: netns.Host (or ""), netns.None or netns.Proxy.
	Net string
	// EgressSocket is the egress proxy's Unix socket, for netns.Proxy.
	EgressSocket string
	// ExtensionRoot, when set, is where Prepare makes the extension area
	// (see ExtDir): a directory of Boris's own state, outside every
	// directory commands may write. Without it there is none.
	ExtensionRoot string
}

// Sandbox is the confinement chosen at start-up. The zero value, and a
// Sandbox that is not Enforced, runs commands as they are.
type Sandbox struct {
	spec     Spec      // the rules; set by prepare
	extra    extraDirs // --sandbox-read and --sandbox-write, resolved by New
	environ  []string  // the core's environment, for the user's git settings
	prepared sync.Once // prepare's one run
	tempDir  string    // private TMPDIR, or ""; named by New, made by prepare
	tempLock *os.File  // holds tempDir's lock while boris lives; nil until made
	tempErr  error     // why tempDir could not be made
	ext      extArea   // the extension area, with Options.ExtensionRoot
	swept    sync.Once // Sweep's one run
	abi      int       // the kernel's Landlock ABI version, 0 = none
	mode     string    // as configured
	enforced bool
	net      string // --sandbox-net, "" for host
	egress   string // the egress proxy's socket, with proxy
	ns       bool   // commands run in namespaces of their own
	nsWhy    string // why not, when net is not host
}

// New decides how commands will run: confined when the kernel supports
// Landlock and mode is not off; an error wrapping ErrUnavailable when mode
// is required and it does not.
func New(opts Options) (*Sandbox, error) {
	if opts.Mode == "" {
		opts.Mode = ModeAuto
	}
	s := &Sandbox{mode: opts.Mode, abi: abiVersion(opts.Environ)}
	if opts.Mode == ModeOff {
		if opts.Net != "" && opts.Net != netns.Host {
			s.nsWhy = "--sandbox off"
		}
		return s, nil
	}
	if err := s.decideNet(opts); err != nil {
		return nil, err
	}
	if s.abi < 1 {
		if opts.Mode == ModeRequired {
			return nil, fmt.Errorf("--sandbox required: %w on this kernel (Linux 5.13+ with landlock in the lsm= boot list)", ErrUnavailable)
		}
		return s, nil
	}
	extra, err := resolveExtra(opts)
	if err != nil {
		return nil, err
	}
	s.extra, s.environ, s.enforced = extra, opts.Environ, true
	if opts.MakeTempDir {
		root, err := filepath.EvalSymlinks(tempRoot(opts.Environ))
		if err != nil {
			return nil, fmt.Errorf("sandbox: private temporary directory: %w", err)
		}
		s.tempDir = filepath.Join(root, tempDirName())
	}
	s.ext.root = opts.ExtensionRoot
	return s, nil
}

// Sweep removes, in the background and once, the private temporary
// directories that cores killed before their Close left beside this
// one's. Listing a crowded /tmp takes a millisecond or two: a core calls
// it once it has answered its client's handshake, and Prepare calls it
// too.
func (s *Sandbox) Sweep() {
	if s == nil || s.tempDir == "" {
		return
	}
	s.swept.Do(func() { go sweepTempDirs(filepath.Dir(s.tempDir), s.tempDir) })
}

// Prepare makes the private temporary directory and resolves the rules,
// once: a session that runs no command pays for neither before it can
// answer its client. Every method that hands the rules out prepares them
// first, so no command can start before they are complete; the commands'
// starter calls Prepare itself to fail a command when the directory could
// not be made (later calls return the same error). A directory not made
// is left out of the rules: the path may be someone else's.
func (s *Sandbox) Prepare() error {
	if !s.Enforced() {
		return nil
	}
	s.prepared.Do(func() {
		s.Sweep()
		if s.tempDir != "" {
			if s.tempLock, s.tempErr = makeTempDir(s.tempDir); s.tempErr != nil {
				s.tempErr = fmt.Errorf("sandbox: private temporary directory: %w", s.tempErr)
			}
		}
		tempDir := s.tempDir
		if s.tempLock == nil {
			tempDir = ""
		}
		if err := s.ext.make(); err != nil && s.tempErr == nil {
			s.tempErr = err
		}
		s.spec = buildSpec(s.extra, s.environ, tempDir)
		s.spec.DenyTCP = s.net != "" && !s.ns // the fallback: see the package comment
	})
	return s.tempErr
}

// rules returns the commands' rules, prepared.
func (s *Sandbox) rules() Spec {
	_ = s.Prepare() // a directory not made is not in them; Prepare's callers say why
	return s.spec
}

// decideNet settles --sandbox-net: namespaces when the kernel lets this
// process make them; else a refusal with --sandbox required, or the
// Landlock fallback (see the package comment) with auto.
func (s *Sandbox) decideNet(opts Options) error {
	if opts.Net == "" || opts.Net == netns.Host {
		return nil
	}
	s.net, s.egress = opts.Net, opts.EgressSocket
	err := netns.Available(opts.Environ)
	if err == nil {
		s.ns = true
		return nil
	}
	if opts.Mode == ModeRequired {
		return fmt.Errorf("--sandbox required with --sandbox-net %s: %w", opts.Net, err)
	}
	s.nsWhy = err.Error()
	return nil
}

// tempRoot is where the private temporary directory goes: $TMPDIR as the
// environment gives it (the gateway points it into the principal's own
// area), else /tmp.
func tempRoot(environ []string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && filepath.IsAbs(v) {
			return v
		}
	}
	return "/tmp"
}

// Close removes the private temporary directory. Call it once no command
// runs any more. A boris killed before Close leaves the directory to the
// next boris started under the same TMPDIR, which removes it.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	s.prepared.Do(func() {}) // nothing is made after Close
	err := s.ext.remove()
	if s.tempLock == nil {
		return err // never made (or not by us: it is not ours to remove)
	}
	err = errors.Join(err, os.RemoveAll(s.tempDir))
	s.tempLock.Close()
	return err
}

// TempDir returns the private temporary directory, or "". Until Prepare
// it is only a name.
func (s *Sandbox) TempDir() string { return s.tempDir }

// Env returns the environment commands get: environ with TMPDIR pointing
// at the private temporary directory, or nil (inherit) when there is none.
func (s *Sandbox) Env(environ []string) []string {
	if s.tempDir == "" {
		return nil
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+s.tempDir)
}

// Enforced reports whether commands run confined by Landlock.
func (s *Sandbox) Enforced() bool { return s != nil && s.enforced }

// Spawns reports whether commands must start from a spawner (see Spawner):
// to be confined by Landlock, or to be in the session's namespaces.
func (s *Sandbox) Spawns() bool { return s.Enforced() || s.Namespaces() }

// Namespaces reports whether commands run in namespaces of their own.
func (s *Sandbox) Namespaces() bool { return s != nil && s.ns }

// SpawnOnly reports whether a command the spawner cannot start must fail
// rather than start through the helper: with --sandbox-net none or proxy,
// the namespaces and the bridge exist only in the spawner.
func (s *Sandbox) SpawnOnly() bool { return s != nil && s.net != "" && s.Spawns() }

// Spec returns the rules commands run under (empty when not enforced).
func (s *Sandbox) Spec() Spec { return s.rules() }

// ABI returns the kernel's Landlock ABI version (0: none).
func (s *Sandbox) ABI() int { return s.abi }

// Wrap returns the argv that runs argv confined: the helper, its rules, then
// argv. Unconfined, argv is returned as it is.
func (s *Sandbox) Wrap(argv []string) []string {
	if !s.Enforced() {
		return argv
	}
	out := []string{selfExe, HelperArg}
	out = append(out, encodeSpec(s.rules())...)
	out = append(out, "--")
	return append(out, argv...)
}

// WrapReadOnly returns a function that runs an argv confined like
// commands, except that every directory commands may write it may only
// read, plus the read directories, and it may write only write: for the
// git Boris runs on its own repositories (docs/reference/security.md: "confined like
// commands"), which must not write the principal's files. It returns nil
// when s is not enforced.
func (s *Sandbox) WrapReadOnly(read, write []string) func([]string) []string {
	if !s.Enforced() {
		return nil
	}
	rules := encodeSpec(s.ReadOnlySpec(read, write))
	return func(argv []string) []string {
		out := make([]string, 0, 3+len(rules)+len(argv))
		out = append(append(append(out, selfExe, HelperArg), rules...), "--")
		return append(out, argv...)
	}
}

// ReadOnlySpec is the commands' rules with every directory they may write
// made readable only, read added, and write the only writable places.
// Outside host mode it may not connect over TCP at all: Boris's own git
// never needs the network.
func (s *Sandbox) ReadOnlySpec(read, write []string) Spec {
	spec := s.rules()
	return Spec{
		Read:      prune(append(append(slices.Clone(spec.Read), spec.Write...), read...)),
		ReadFiles: spec.ReadFiles,
		Write:     write,
		Files:     spec.Files,
		DenyTCP:   s.net != "",
	}
}

// Readable reports whether a command could read path under s: it lies in a
// readable or writable directory, or is a granted file. When s is not
// enforced every path is readable.
func (s *Sandbox) Readable(path string) bool { return s.Report().Readable(path) }

// Readable reports whether a command confined as r describes could read
// path; every path when r is not enforced.
func (r Report) Readable(path string) bool {
	if !r.Enforced {
		return true
	}
	for _, dir := range append(append([]string{}, r.Read...), r.Write...) {
		if within(path, dir) {
			return true
		}
	}
	return slices.Contains(r.Files, path) || slices.Contains(r.ReadFiles, path)
}

func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// Report describes the confinement for logs and `boris --check`.
type Report struct {
	Mode        string `json:"mode"` // as configured
	TempDir     string `json:"temp_dir,omitempty"`
	Enforced    bool   `json:"enforced"`     // commands run under Landlock
	LandlockABI int    `json:"landlock_abi"` // the kernel's ABI version; 0 = none
	// Net is --sandbox-net as configured: host, none or proxy.
	Net string `json:"net"`
	// NetEnforced says what confines the network: "namespace" (a private
	// loopback per session), "landlock-tcp" (the fallback: no TCP connect
	// but to the egress bridge; UDP and listeners not confined) or "none".
	NetEnforced string `json:"net_enforced"`
	// PIDNamespace is true when commands see only their session's
	// processes (and have a private IPC namespace and /dev/shm).
	PIDNamespace bool `json:"pid_namespace"`
	// PrivateRoot is true when commands see only what their rules grant
	// (netns.PrivateRoot): namespaces and Landlock both in force.
	PrivateRoot bool `json:"private_root"`
	// NotEnforced says why namespaces are not in force, outside host mode.
	NotEnforced string `json:"not_enforced,omitempty"`
	Spec
}

// Report returns what s enforces, the rules prepared.
func (s *Sandbox) Report() Report {
	r := s.Summary()
	if s.Enforced() {
		r.Spec, r.TempDir = s.rules(), s.tempDir
	}
	return r
}

// Summary is Report without the rules and the temporary directory, which
// it leaves unprepared: what a core logs as it starts.
func (s *Sandbox) Summary() Report {
	r := Report{Mode: s.mode, Enforced: s.enforced, LandlockABI: s.abi,
		Net: cmpOr(s.net, netns.Host), NetEnforced: "none", PIDNamespace: s.ns, NotEnforced: s.nsWhy,
		PrivateRoot: s.ns && s.enforced}
	switch {
	case s.ns:
		r.NetEnforced = "namespace"
	case s.enforced && s.net != "" && s.abi >= 4: // the rules' DenyTCP (Prepare)
		r.NetEnforced = "landlock-tcp"
	}
	return r
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// encodeSpec turns a spec into helper arguments: "r:DIR", "w:DIR", "f:FILE".
// Plain arguments, not JSON, keep the helper's parsing trivial.
func encodeSpec(spec Spec) []string {
	var out []string
	for _, p := range spec.Read {
		out = append(out, "r:"+p)
	}
	for _, p := range spec.ReadFiles {
		out = append(out, "rf:"+p)
	}
	for _, p := range spec.Write {
		out = append(out, "w:"+p)
	}
	for _, p := range spec.Files {
		out = append(out, "f:"+p)
	}
	if spec.DenyTCP {
		out = append(out, "tcp:deny")
	}
	for _, port := range spec.TCPPorts {
		out = append(out, "tcp:"+strconv.Itoa(port))
	}
	return out
}

// decodeSpec parses the helper's arguments up to "--", returning the spec
// and the command after it.
func decodeSpec(args []string) (Spec, []string, error) {
	var spec Spec
	for i, a := range args {
		if a == "--" {
			if i+1 >= len(args) {
				return spec, nil, errors.New("no command after --")
			}
			return spec, args[i+1:], nil
		}
		kind, path, ok := strings.Cut(a, ":")
		if kind == "tcp" {
			port, err := strconv.Atoi(path)
			switch {
			case path == "deny":
				spec.DenyTCP = true
			case err == nil && port > 0 && port < 65536:
				spec.TCPPorts = append(spec.TCPPorts, port)
			default:
				return spec, nil, fmt.Errorf("bad rule %q", a)
			}
			continue
		}
		if !ok || !filepath.IsAbs(path) {
			return spec, nil, fmt.Errorf("bad rule %q", a)
		}
		switch kind {
		case "r":
			spec.Read = append(spec.Read, path)
		case "rf":
			spec.ReadFiles = append(spec.ReadFiles, path)
		case "w":
			spec.Write = append(spec.Write, path)
		case "f":
			spec.Files = append(spec.Files, path)
		default:
			return spec, nil, fmt.Errorf("bad rule %q", a)
		}
	}
	return spec, nil, errors.New("missing -- before the command")
}

// helperFailed is the exit status of a helper that could not confine or
// start the command: like a shell's "command not found" family, distinct
// from the command's own statuses in the common range.
const helperFailed = 126

// RunHelper is the helper's whole life: restrict this process to the rules
// in args, then exec the command after "--". It returns only on failure,
// having written why to stderr; the caller exits with the status returned.
func RunHelper(args []string) int {
	// Capabilities belong to a thread and execve keeps only the calling
	// thread's: drop them and exec from one thread.
	runtime.LockOSThread()
	spec, argv, err := decodeSpec(args)
	if err == nil {
		err = dropCapabilities()
	}
	if err == nil {
		err = restrict(spec)
	}
	if err == nil {
		err = execve(argv)
	}
	fmt.Fprintf(os.Stderr, "boris sandbox: %v\n", err)
	return helperFailed
}
