package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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
}

// spawnMessage is what the spawner sends back: the pid of a started
// command (or why it could not start), and later each command's end.
type spawnMessage struct {
	Pid    int    `json:"pid,omitempty"`
	Err    string `json:"err,omitempty"`
	Exited int    `json:"exited,omitempty"` // pid of a command that ended
	Status uint32 `json:"status,omitempty"` // its wait status
}

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
// dies, Start fails and the caller falls back to the helper.
type Spawner struct {
	proc *exec.Cmd
	conn *net.UnixConn

	reqMu   sync.Mutex        // one request at a time
	replies chan spawnMessage // answers to requests
	mu      sync.Mutex        // guards the maps
	waiters map[int]chan syscall.WaitStatus
	early   map[int]syscall.WaitStatus // ends that came before their waiter
	dead    chan struct{}              // closed when the connection ends
}

// StartSpawner starts the session's spawner under s's rules, with start
// (the subreaper's, or exec.Cmd.Start when nil). It fails when s is not
// enforced.
func (s *Sandbox) StartSpawner(start func(*exec.Cmd) error) (*Spawner, error) {
	return s.startSpawner(s.spec, nil, start)
}

// StartReadOnlySpawner starts a spawner under ReadOnlySpec(read, write):
// for the git Boris runs on its own repositories, which it starts often.
// extra are open in the spawner as descriptors 4, 5, ..., so write may
// name them as /proc/self/fd/N (granted before anything else runs there).
func (s *Sandbox) StartReadOnlySpawner(read, write []string, extra []*os.File, start func(*exec.Cmd) error) (*Spawner, error) {
	return s.startSpawner(s.ReadOnlySpec(read, write), extra, start)
}

func (s *Sandbox) startSpawner(spec Spec, extra []*os.File, start func(*exec.Cmd) error) (*Spawner, error) {
	if !s.Enforced() {
		return nil, errors.New("sandbox: no spawner without Landlock")
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: spawner socket: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "spawner"), os.NewFile(uintptr(fds[1]), "spawner-peer")
	defer theirs.Close()
	args := append([]string{SpawnerArg}, encodeSpec(spec)...)
	cmd := exec.Command(selfExe, args...)
	cmd.ExtraFiles = append([]*os.File{theirs}, extra...) // fd 3, then 4, ...
	cmd.Stderr = os.Stderr
	// No parent-death signal: the spawner must live to clean up after a
	// core that was killed (see Spawner); the closed connection ends it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
	msg, err := json.Marshal(spawnRequest{Argv: argv, Dir: dir, Env: env})
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
	return reply.Pid, w, nil
}

// Close ends the spawner: it kills every command it still runs and exits.
func (sp *Spawner) Close() {
	_ = sp.conn.Close()
}

// RunSpawner is the spawner's whole life (see Spawner): confine, then
// start commands on request until the connection on fd 3 ends, then kill
// those still running. It returns the exit status.
func RunSpawner(args []string) int {
	runtime.LockOSThread() // every fork from this one capability-free thread
	spec, _, err := decodeSpec(append(args, "--", "x"))
	if err == nil {
		err = dropCapabilities()
	}
	if err == nil {
		err = restrict(spec)
	}
	if err == nil {
		err = NonDumpable() // its commands, in its domain, cannot ptrace it
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
	serve(fc.(*net.UnixConn))
	return 0
}

// serve runs requests until the connection ends.
func serve(conn *net.UnixConn) {
	var wmu sync.Mutex
	send := func(m spawnMessage) {
		b, _ := json.Marshal(m)
		wmu.Lock()
		_, _ = conn.Write(b)
		wmu.Unlock()
	}
	var running sync.Map // pid -> struct{}
	buf, oob := make([]byte, maxMessage), make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			break
		}
		files, ferr := receivedFiles(oob[:oobn])
		pid, err := spawn(buf[:n], files, ferr)
		for _, f := range files {
			f.Close()
		}
		if err != nil {
			send(spawnMessage{Err: err.Error()})
			continue
		}
		running.Store(pid, struct{}{})
		send(spawnMessage{Pid: pid})
		go func() {
			var ws syscall.WaitStatus
			for {
				_, err := syscall.Wait4(pid, &ws, 0, nil)
				if err != syscall.EINTR {
					break
				}
			}
			running.Delete(pid)
			send(spawnMessage{Exited: pid, Status: uint32(ws)})
		}()
	}
	// The core is gone or done: so are its commands.
	running.Range(func(k, _ any) bool {
		_ = syscall.Kill(-k.(int), syscall.SIGKILL)
		return true
	})
	if signalsScoped() {
		// Every process this one may signal: its own Landlock domain,
		// which is the session's commands and whatever they started,
		// wherever they went. The kernel refuses the rest.
		_ = syscall.Kill(-1, syscall.SIGKILL)
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

// spawn starts one request's command from this (locked) thread.
func spawn(msg []byte, files []*os.File, ferr error) (int, error) {
	if ferr != nil {
		return 0, ferr
	}
	var req spawnRequest
	if err := json.Unmarshal(msg, &req); err != nil || len(req.Argv) == 0 {
		return 0, fmt.Errorf("bad spawn request")
	}
	path, err := exec.LookPath(req.Argv[0])
	if err != nil {
		return 0, err
	}
	return syscall.ForkExec(path, req.Argv, &syscall.ProcAttr{
		Dir: req.Dir, Env: req.Env,
		Files: []uintptr{files[0].Fd(), files[1].Fd(), files[2].Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
}
