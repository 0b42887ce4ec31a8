package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/egress"
	"github.com/mjkoo/boris/internal/netns"
)

// SpawnerArg is the first argument that turns the boris binary into the
// session's spawner (see Spawner).
const SpawnerArg = "__boris-sandbox-spawner"

// maxMessage bounds one spawner message: a command, its directory and
// its environment.
const maxMessage = 4 << 20

// spawnRequest asks the spawner to start a command. Its stdin, stdout and
// stderr travel beside it as SCM_RIGHTS descriptors.
type spawnRequest struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	Env  []string `json:"env"`
	// Domain is where it starts: "" for a command, or domainExtension
	// or domainGit (see thread_linux.go).
	Domain string `json:"domain,omitempty"`
}

// The domains a request may name besides the commands'.
const (
	domainExtension = "ext" // an extension tool: may write the extension area
	domainGit       = "git" // the checkpoints' git: may write only the shadow repository
)

// spawnMessage is what the spawner sends back: the pid of a started
// command (or why it could not start), and later each command's end.
type spawnMessage struct {
	Pid    int    `json:"pid,omitempty"`
	Err    string `json:"err,omitempty"`
	Exited int    `json:"exited,omitempty"` // pid of a command that ended
	Status uint32 `json:"status,omitempty"` // its wait status
	// HostPid is Pid as the core's PID namespace numbers it, when the
	// spawner has a PID namespace of its own.
	HostPid int `json:"host_pid,omitempty"`
}

// Spawner options: arguments before the rules, for the spawner alone.
const (
	optNamespaces = "opt:ns"     // Setup the namespaces it was born in
	optNoLandlock = "opt:nolock" // namespaces only: the kernel has no Landlock
	optProbe      = "opt:probe"  // set up, then exit 0 (netns.Probe)
	optProxy      = "opt:proxy=" // bridge a loopback port to this egress socket
	optCommands   = "opt:cmds="  // start commands on a thread nested in these rules (JSON)
	optExtension  = "opt:ext="   // start extension tools on a thread nested in these rules (JSON)
	optGit        = "opt:git="   // start the checkpoints' git on a thread nested in these rules (JSON)
	optPrefix     = "opt:"
)

// Spawner is one confined process per session that starts the session's
// commands. Starting a command through the re-exec helper costs a Go
// runtime start each time (milliseconds); the spawner pays it once: it
// confines itself exactly as the helper does, then forks each command
// from its one confined, capability-free thread, so every command is in
// its Landlock domain from its first instruction.
//
// Commands are the spawner's children, not the core's: the spawner waits
// for them and reports each wait status. They run in process groups of
// their own (pgid = pid), so the core signals them as it does any command.
// The spawner outlives its core by a moment: however the core ends (a
// clean stop, a crash, SIGKILL, or the parent-death signal of a gateway
// killed with SIGKILL), its end of the connection closes, and the spawner
// kills every process of the session before it exits — on kernels that
// scope signals (Landlock ABI 6), all of them, whatever process group,
// session or parent they moved to (setsid, double fork, nohup), since
// exactly the session's commands share its Landlock domain. If the spawner
// dies, Start fails and the caller falls back to the helper (unless
// Sandbox.SpawnOnly).
//
// With --sandbox-net none or proxy the spawner is born in namespaces of
// its own (internal/netns) and is PID 1 of its PID namespace: it reaps
// every orphan there, and when it exits the kernel kills whatever is left
// in the namespace. Each pid it reports is the namespace's, and its
// reply to a spawn also carries the pid as the core sees it (read from the
// command's pidfd through the /proc the spawner was born with). With
// proxy, it also runs the bridge to the egress proxy on the namespace's
// loopback (netns.ProxyPort), and gives every command the variables that
// point HTTP clients there.
type Spawner struct {
	proc *exec.Cmd
	conn *net.UnixConn

	reqMu   sync.Mutex        // one request at a time
	replies chan spawnMessage // answers to requests
	mu      sync.Mutex        // guards the maps
	waiters map[int]chan syscall.WaitStatus
	early   map[int]syscall.WaitStatus // ends that came before their waiter
	dead    chan struct{}              // closed when the connection ends
	git     bool                       // it has a domain for the checkpoints' git (StartGit)
}

// StartSpawner starts the session's spawner under s's rules, with start
// (the subreaper's, or exec.Cmd.Start when nil). It fails when s is not
// enforced.
//
// With an extension area (ExtDir), the spawner's own rules are
// ExtensionSpec, for the extension tools it starts (StartExtension), and
// every other command starts from a thread confined, nested, to the
// commands' rules (see thread_linux.go).
//
// With git (and Landlock, and no namespaces), the spawner also starts the
// checkpoints' git (StartGit), on a thread of its own confined as
// GitDomain says: the session needs no second spawner for it. The
// spawner's own rules are then the union of every domain's, and commands
// and extension tools each start from a nested thread of their own.
// Sessions in namespaces leave git to a spawner of its own: its shadow
// repository would have to be in the commands' private root.
func (s *Sandbox) StartSpawner(start func(*exec.Cmd) error, git *GitDomain) (*Spawner, error) {
	cmds, opts := s.rules(), s.spawnerOpts()
	if !s.Enforced() {
		return s.startSpawner(cmds, opts, nil, start)
	}
	own := cmds
	type domain struct {
		opt  string
		spec Spec
	}
	var nested []domain
	if s.ext.dir != "" {
		own = s.ExtensionSpec()
		nested = append(nested, domain{optCommands, cmds})
	}
	var extra []*os.File
	if git != nil && !s.ns {
		if s.ext.dir != "" {
			nested = append(nested, domain{optExtension, own})
		} else {
			nested = append(nested, domain{optCommands, cmds})
		}
		gitSpec := s.ReadOnlySpec(git.Read, []string{"/proc/self/fd/4"})
		nested = append(nested, domain{optGit, gitSpec})
		own = union(own, gitSpec)
		extra = []*os.File{git.Shadow}
	}
	for _, d := range nested {
		b, err := json.Marshal(d.spec)
		if err != nil {
			return nil, fmt.Errorf("sandbox: spawner rules: %w", err)
		}
		opts = append(opts, d.opt+string(b))
	}
	sp, err := s.startSpawner(own, opts, extra, start)
	if err == nil {
		sp.git = extra != nil
	}
	return sp, err
}

// spawnerOpts are the session spawner's options (see the opt constants).
func (s *Sandbox) spawnerOpts() []string {
	var opts []string
	if s.ns {
		opts = append(opts, optNamespaces)
	}
	if !s.enforced {
		opts = append(opts, optNoLandlock)
	}
	if s.net == netns.Proxy && s.egress != "" {
		opts = append(opts, optProxy+s.egress)
	}
	return opts
}

// Probe starts a spawner in the namespaces --sandbox-net asks for, which
// sets them up and exits: the real test, for --check, of what New judged
// from the kernel's settings. Nil when no namespaces are asked for.
// When it fails, s falls back as New would have (see the package comment)
// and the error, wrapping netns.ErrUnavailable, says why.
func (s *Sandbox) Probe() error {
	if !s.ns {
		return nil
	}
	if netns.Attr(&syscall.SysProcAttr{}) {
		restore := dumpable()
		defer restore()
	}
	err := netns.Probe(nil, selfExe, SpawnerArg, optNamespaces, optProbe)
	if err != nil {
		s.ns, s.nsWhy = false, err.Error()
		s.spec.DenyTCP = s.enforced
	}
	return err
}

// StartReadOnlySpawner starts a spawner under ReadOnlySpec(read, write):
// for the git Boris runs on its own repositories, which it starts often.
// extra are open in the spawner as descriptors 4, 5, ..., so write may
// name them as /proc/self/fd/N (granted before anything else runs there).
func (s *Sandbox) StartReadOnlySpawner(read, write []string, extra []*os.File, start func(*exec.Cmd) error) (*Spawner, error) {
	if !s.Enforced() {
		return nil, errors.New("sandbox: no spawner without Landlock")
	}
	return s.startSpawner(s.ReadOnlySpec(read, write), nil, extra, start)
}

func (s *Sandbox) startSpawner(spec Spec, opts []string, extra []*os.File, start func(*exec.Cmd) error) (*Spawner, error) {
	if !s.Spawns() {
		return nil, errors.New("sandbox: no spawner without Landlock or namespaces")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: spawner socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "spawner"), os.NewFile(uintptr(fds[1]), "spawner-peer")
	defer theirs.Close()
	args := append(append([]string{SpawnerArg}, opts...), encodeSpec(spec)...)
	cmd := exec.Command(selfExe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if slices.Contains(opts, optNamespaces) && netns.Attr(cmd.SysProcAttr) {
		restore := dumpable()
		defer restore()
	}
	cmd.ExtraFiles = append([]*os.File{theirs}, extra...) // fd 3, then 4, ...
	cmd.Stderr = os.Stderr
	// No parent-death signal: the spawner must live to clean up after a
	// core that was killed (see Spawner); the closed connection ends it.
	cmd.SysProcAttr.Setpgid = true
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if err := start(cmd); err != nil {
		ours.Close()
		return nil, fmt.Errorf("sandbox: start the spawner: %w", err)
	}
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("sandbox: spawner connection: %w", err)
	}
	sp := &Spawner{
		proc: cmd, conn: fc.(*net.UnixConn), replies: make(chan spawnMessage, 1),
		waiters: map[int]chan syscall.WaitStatus{}, early: map[int]syscall.WaitStatus{}, dead: make(chan struct{}),
	}
	go sp.read()
	return sp, nil
}

// Pid returns the spawner's process id.
func (sp *Spawner) Pid() int { return sp.proc.Process.Pid }

// Wait waits for the spawner process to exit, once Close has been called.
func (sp *Spawner) Wait() error { return sp.proc.Wait() }

// read dispatches the spawner's messages until the connection ends; then
// every command still waited for is reported killed.
func (sp *Spawner) read() {
	buf := make([]byte, 64<<10)
	defer func() {
		close(sp.dead)
		sp.mu.Lock()
		for pid, w := range sp.waiters {
			w <- syscall.WaitStatus(syscall.SIGKILL) // its parent is gone: so is it, or soon
			delete(sp.waiters, pid)
		}
		sp.mu.Unlock()
	}()
	for {
		n, err := sp.conn.Read(buf)
		if err != nil || n == 0 {
			return
		}
		var m spawnMessage
		if json.Unmarshal(buf[:n], &m) != nil {
			return
		}
		if m.Exited == 0 {
			sp.replies <- m
			continue
		}
		sp.mu.Lock()
		if w := sp.waiters[m.Exited]; w != nil {
			w <- syscall.WaitStatus(m.Status)
			delete(sp.waiters, m.Exited)
		} else {
			sp.early[m.Exited] = syscall.WaitStatus(m.Status)
		}
		sp.mu.Unlock()
	}
}

// Start starts argv in dir with env, its stdin, stdout and stderr on
// files, in a process group of its own. It returns the pid and a channel
// that receives the wait status once the command has exited.
func (sp *Spawner) Start(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	return sp.start(spawnRequest{Argv: argv, Dir: dir, Env: env}, files)
}

// StartExtension is Start for an extension tool: it runs in the domain
// that may write the extension area, the spawner's own or, when the
// spawner also starts git, one nested in it.
func (sp *Spawner) StartExtension(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	return sp.start(spawnRequest{Argv: argv, Dir: dir, Env: env, Domain: domainExtension}, files)
}

// HasGit reports whether the spawner starts the checkpoints' git
// (StartGit): whether StartSpawner was given a GitDomain it could use.
func (sp *Spawner) HasGit() bool { return sp != nil && sp.git }

// StartGit is Start for the checkpoints' git, in its GitDomain.
func (sp *Spawner) StartGit(argv []string, dir string, env []string, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	if !sp.git {
		return 0, nil, errors.New("sandbox: this spawner has no domain for git")
	}
	return sp.start(spawnRequest{Argv: argv, Dir: dir, Env: env, Domain: domainGit}, files)
}

func (sp *Spawner) start(req spawnRequest, files [3]*os.File) (int, <-chan syscall.WaitStatus, error) {
	msg, err := json.Marshal(req)
	if err != nil || len(msg) > maxMessage {
		return 0, nil, fmt.Errorf("sandbox: spawn request: too large or invalid")
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	sp.reqMu.Lock()
	defer sp.reqMu.Unlock()
	if _, _, err := sp.conn.WriteMsgUnix(msg, rights, nil); err != nil {
		return 0, nil, fmt.Errorf("sandbox: spawner: %w", err)
	}
	var reply spawnMessage
	select {
	case reply = <-sp.replies:
	case <-sp.dead:
		return 0, nil, errors.New("sandbox: the spawner exited")
	}
	if reply.Err != "" {
		return 0, nil, errors.New(reply.Err)
	}
	w := make(chan syscall.WaitStatus, 1)
	sp.mu.Lock()
	if ws, ok := sp.early[reply.Pid]; ok {
		w <- ws
		delete(sp.early, reply.Pid)
	} else {
		sp.waiters[reply.Pid] = w
	}
	sp.mu.Unlock()
	if reply.HostPid != 0 {
		return reply.HostPid, w, nil
	}
	return reply.Pid, w, nil
}

// dumpableMu keeps dumpable's windows from overlapping.
var dumpableMu sync.Mutex

// dumpable makes this process dumpable until the returned function is
// called, which restores what was. A child born in a user namespace of its
// own inherits the flag, and while it is not dumpable its /proc files
// belong to root: the core could not write the child's uid_map. The window
// is one clone long, and no command can use it: Landlock's ptrace rule
// keeps every confined command from tracing the core, dumpable or not, and
// commands in namespaces do not see it.
func dumpable() func() {
	dumpableMu.Lock()
	was, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil || was == 1 {
		dumpableMu.Unlock()
		return func() {}
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0)
	return func() {
		_ = unix.Prctl(unix.PR_SET_DUMPABLE, uintptr(was), 0, 0, 0)
		dumpableMu.Unlock()
	}
}

// Close ends the spawner: it kills every command it still runs and exits.
func (sp *Spawner) Close() {
	_ = sp.conn.Close()
}

// spawnerConfig is what a spawner was asked for.
type spawnerConfig struct {
	spec       Spec
	namespaces bool   // set up the namespaces it was born in
	landlock   bool   // confine itself with Landlock
	probe      bool   // exit once set up
	egress     string // the egress proxy's socket, with a bridge to it
	commands   *Spec  // the commands' rules, nested, when they differ from spec
	extension  *Spec  // the extension tools' rules, nested, when they differ from spec
	git        *Spec  // the checkpoints' git's rules, nested; its shadow is descriptor 4
}

func parseSpawnerArgs(args []string) (c spawnerConfig, err error) {
	c.landlock = true
	for len(args) > 0 && strings.HasPrefix(args[0], optPrefix) {
		switch a := args[0]; {
		case a == optNamespaces:
			c.namespaces = true
		case a == optNoLandlock:
			c.landlock = false
		case a == optProbe:
			c.probe = true
		case strings.HasPrefix(a, optProxy):
			c.egress = strings.TrimPrefix(a, optProxy)
		case strings.HasPrefix(a, optCommands):
			if c.commands, err = nestedSpec(a, optCommands); err != nil {
				return c, err
			}
		case strings.HasPrefix(a, optExtension):
			if c.extension, err = nestedSpec(a, optExtension); err != nil {
				return c, err
			}
		case strings.HasPrefix(a, optGit):
			if c.git, err = nestedSpec(a, optGit); err != nil {
				return c, err
			}
		default:
			return c, fmt.Errorf("bad option %q", a)
		}
		args = args[1:]
	}
	c.spec, _, err = decodeSpec(append(args, "--", "x"))
	return c, err
}

// nestedSpec decodes the rules of a nested domain's option.
func nestedSpec(arg, opt string) (*Spec, error) {
	spec := &Spec{}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(arg, opt)), spec); err != nil {
		return nil, fmt.Errorf("bad option %q: %w", opt, err)
	}
	return spec, nil
}

// RunSpawner is the spawner's whole life (see Spawner): set up its
// namespaces and its bridge, confine itself, then start commands on
// request until the connection on fd 3 ends, then kill those still
// running. It returns the exit status.
func RunSpawner(args []string) int {
	runtime.LockOSThread() // every fork from this one capability-free thread
	c, err := parseSpawnerArgs(args)
	hostProc := -1
	if err == nil && c.namespaces {
		hostProc, err = setupNamespaces(&c)
	}
	if err == nil && c.probe {
		return 0
	}
	proxyAddr := ""
	if err == nil && c.egress != "" {
		proxyAddr, err = startBridge(&c)
	}
	if err == nil {
		err = dropCapabilities()
	}
	var sockets []string
	if c.egress != "" {
		sockets = []string{c.egress}
	}
	if err == nil && c.landlock {
		err = restrictWith(c.spec, sockets)
	}
	if err == nil {
		err = NonDumpable() // its commands, in its domain, cannot ptrace it
	}
	var cmds, ext, git *thread
	if err == nil && c.landlock {
		cmds, err = nestedThread(c.commands, sockets, false)
	}
	if err == nil && c.landlock {
		ext, err = nestedThread(c.extension, sockets, false)
	}
	if err == nil && c.landlock && c.git != nil {
		git, err = nestedThread(c.git, nil, c.git.DenyTCP)
		// Its rules hold the shadow by inode now: no command may
		// inherit the descriptor.
		unix.Close(4)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "boris sandbox spawner: %v\n", err)
		return helperFailed
	}
	// FileConn keeps a close-on-exec duplicate; the inherited descriptor 3
	// must go, or every command would inherit the core's channel.
	f := os.NewFile(3, "spawner")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "boris sandbox spawner: %v\n", err)
		return helperFailed
	}
	st := &spawnerState{conn: fc.(*net.UnixConn), running: map[int]struct{}{}, hostProc: hostProc, proxyAddr: proxyAddr, cmds: cmds, ext: ext, git: git}
	st.serve()
	return 0
}

// startBridge listens where commands will find the egress proxy: on the
// namespace's loopback at netns.ProxyPort, or, without namespaces (the
// Landlock fallback), on a free port of the host's loopback, which then
// becomes the one port commands may connect to. It returns host:port.
func startBridge(c *spawnerConfig) (string, error) {
	addr := "127.0.0.1:" + strconv.Itoa(netns.ProxyPort)
	if !c.namespaces {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("egress bridge: %w", err)
	}
	go func() { _ = egress.Bridge(ln, c.egress) }()
	port := ln.Addr().(*net.TCPAddr).Port
	c.spec.TCPPorts = append(c.spec.TCPPorts, port)
	return "127.0.0.1:" + strconv.Itoa(port), nil
}

// spawnerState is a serving spawner's.
type spawnerState struct {
	conn *net.UnixConn
	wmu  sync.Mutex // one message at a time
	// mu is held across each fork and its reply, and across each round of
	// reaping: a command is known before its end can be reaped, and its
	// pid is sent before its end.
	mu        sync.Mutex
	running   map[int]struct{}
	hostProc  int    // the host's /proc (netns.OpenHostProc), -1 without a PID namespace
	proxyAddr string // the bridge, with proxy
	// Where requests fork, each on a thread in its nested domain; nil:
	// this thread, in the spawner's own domain (the commands' or, with an
	// extension area, the extension tools').
	cmds, ext, git *thread
}

// fork runs f, which forks a request's process, on the thread whose
// domain the request is for; an error when the spawner has none for it.
func (st *spawnerState) fork(req *spawnRequest, f func()) error {
	t := st.cmds
	switch req.Domain {
	case "":
	case domainExtension:
		t = st.ext
		if t == nil && st.git != nil {
			return errors.New("no domain for extension tools") // its own would write the shadow
		}
	case domainGit:
		if t = st.git; t == nil {
			return errors.New("no domain for git")
		}
	default:
		return fmt.Errorf("unknown domain %q", req.Domain)
	}
	if t == nil {
		f()
	} else {
		t.do(f)
	}
	return nil
}

// nestedThread starts a thread confined, nested, to spec, with TCP
// connects denied but to spec.TCPPorts when denyTCP; nil for no spec.
func nestedThread(spec *Spec, sockets []string, denyTCP bool) (*thread, error) {
	if spec == nil {
		return nil, nil
	}
	return startThread(func() error {
		if err := dropCapabilities(); err != nil {
			return err
		}
		return restrictThread(*spec, sockets, denyTCP)
	})
}

func (st *spawnerState) send(m spawnMessage) {
	b, _ := json.Marshal(m)
	st.wmu.Lock()
	_, _ = st.conn.Write(b)
	st.wmu.Unlock()
}

// serve runs requests until the connection ends.
func (st *spawnerState) serve() {
	// Children are reaped on SIGCHLD, whoever they are: the commands, and,
	// as PID 1 of a namespace, every orphan there.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGCHLD)
	go func() {
		for range sigc {
			st.reap()
		}
	}()
	buf, oob := make([]byte, maxMessage), make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := st.conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			break
		}
		files, ferr := receivedFiles(oob[:oobn])
		st.mu.Lock()
		pid, hostPid, err := st.spawn(buf[:n], files, ferr)
		for _, f := range files {
			f.Close()
		}
		if err != nil {
			st.send(spawnMessage{Err: err.Error()})
		} else {
			st.running[pid] = struct{}{}
			st.send(spawnMessage{Pid: pid, HostPid: hostPid})
		}
		st.mu.Unlock()
	}
	// The core is gone or done: so are its commands.
	st.mu.Lock()
	for pid := range st.running {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	st.mu.Unlock()
	if signalsScoped() || st.hostProc >= 0 {
		// Every process this one may signal: its own Landlock domain,
		// which is the session's commands and whatever they started,
		// wherever they went; or, as PID 1, its whole PID namespace.
		// The kernel refuses the rest.
		_ = syscall.Kill(-1, syscall.SIGKILL)
	}
}

// reap collects every child that has ended and reports the commands'.
func (st *spawnerState) reap() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		if _, ok := st.running[pid]; ok {
			delete(st.running, pid)
			st.send(spawnMessage{Exited: pid, Status: uint32(ws)})
		}
	}
}

// signalsScoped reports whether this process's Landlock domain confines
// the signals it sends: config asks for every scope go-landlock knows, and
// the kernel applies signal scoping from ABI 6 on. Only then may kill(-1)
// be used, as it reaches no one outside the domain.
func signalsScoped() bool { return abiVersion(nil) >= 6 }

// receivedFiles turns the descriptors of one message into files.
func receivedFiles(oob []byte) ([]*os.File, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, m := range msgs {
		fds, err := unix.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "stdio"))
		}
	}
	if len(files) != 3 {
		return files, fmt.Errorf("want 3 descriptors, got %d", len(files))
	}
	return files, nil
}

// spawn starts one request's command from this (locked) thread. It
// returns the pid and, in a PID namespace, the pid the core sees (else 0).
// It runs under st.mu, so the command is not reaped yet, even if it has
// ended: its pidfd still names it.
func (st *spawnerState) spawn(msg []byte, files []*os.File, ferr error) (int, int, error) {
	if ferr != nil {
		return 0, 0, ferr
	}
	var req spawnRequest
	if err := json.Unmarshal(msg, &req); err != nil || len(req.Argv) == 0 {
		return 0, 0, fmt.Errorf("bad spawn request")
	}
	path, err := exec.LookPath(req.Argv[0])
	if err != nil {
		return 0, 0, err
	}
	if st.proxyAddr != "" {
		req.Env = netns.WithProxyEnv(req.Env, st.proxyAddr)
	}
	pidfd := -1
	sys := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if st.hostProc >= 0 {
		sys.PidFD = &pidfd
	}
	var pid int
	if ferr := st.fork(&req, func() {
		pid, err = syscall.ForkExec(path, req.Argv, &syscall.ProcAttr{
			Dir: req.Dir, Env: req.Env,
			Files: []uintptr{files[0].Fd(), files[1].Fd(), files[2].Fd()},
			Sys:   sys,
		})
	}); ferr != nil {
		return 0, 0, ferr
	}
	if err != nil || st.hostProc < 0 {
		return pid, 0, err
	}
	hostPid, herr := -1, errors.New("this kernel gives no pidfd (clone CLONE_PIDFD, Linux 5.2+), which a PID namespace needs")
	if pidfd >= 0 {
		hostPid, herr = netns.HostPid(st.hostProc, pidfd)
		unix.Close(pidfd)
	}
	if herr != nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		return 0, 0, fmt.Errorf("the command's pid outside its namespace: %w", herr)
	}
	return pid, hostPid, nil
}
