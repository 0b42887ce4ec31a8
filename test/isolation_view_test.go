//go:build linux

package test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// The private-view tests (issue 38) attack the multi-user set-up (see
// isolation_test.go) through what the file system shows a session's
// commands: in the gateway's default --sandbox-net proxy, a command finds
// its own tree, its allowed and system directories and nothing else; no
// other tenant's Unix socket, no gateway socket, no cgroup named after a
// session; workspace git never connects over TCP.

// isoRefusedOrAbsentRe matches isoRefusedRe's refusals and the answer of
// a path that is not in a session's private root at all.
var isoRefusedOrAbsentRe = regexp.MustCompile(isoRefusedRe.String() + `|No such file or directory`)

// viewNeeds skips unless the private root can be built here: namespaces
// and Landlock (the root is built from Landlock's rules).
func viewNeeds(t *testing.T, programs ...string) {
	t.Helper()
	netNeeds(t, programs...)
	if !landlockAvailable() {
		t.Skip("this kernel has no Landlock, from whose rules the private root is built")
	}
}

// viewSocketServer serves "hello from <who>" to every connection on the
// Unix socket app.sock in the working directory.
const viewSocketServer = netPython + ` -c '
import os, socket
s = socket.socket(socket.AF_UNIX)
s.bind("app.sock"); s.listen(8)
while True:
    c, _ = s.accept(); c.sendall(b"hello from %s\n"); c.close()
'`

// viewSocketClient connects to the Unix socket at path and prints what it
// reads.
const viewSocketClient = netPython + ` -c '
import socket, sys
c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); print(c.recv(100).decode())
' %s`

// TestViewPrivateDisk: bob serves on $PWD/app.sock and keeps a FIFO
// there; alice can neither connect to ../<bob's directory>/app.sock nor see anything of
// bob's directory, cannot reach the egress proxy's own socket (whose path
// PID 1's command line names), finds no session's id under
// /sys/fs/cgroup, and has a /dev/shm of her own that she may write and
// bob does not see.
func TestViewPrivateDisk(t *testing.T) {
	viewNeeds(t, "curl", netPython)
	g := startIsoGateway(t, newIsoFixture(t))
	if h := netHealthOf(t, g.url); !h.PrivateRoot {
		t.Errorf("/healthz: got %+v, want private_root true", h)
	}
	alice, bob := g.open(t, authAlice, true), g.netBob(t)
	m := gwSleepMarker()

	t.Run("another tenant's unix socket", func(t *testing.T) {
		isoStartTask(t, bob, fmt.Sprintf(viewSocketServer, "bob-"+m))
		isoOK(t, bob, "bash", map[string]any{"command": "mkfifo pipe-" + m})
		out := isoBash(t, bob, "for i in $(seq 100); do "+fmt.Sprintf(viewSocketClient, "app.sock")+" && exit 0; sleep 0.1; done; exit 1")
		netWant(t, "bob: his own socket", out, []string{"hello from bob-" + m}, nil)
		rel := "../" + filepath.Base(bob.dir)
		for _, path := range []string{rel + "/app.sock", filepath.Join(bob.dir, "app.sock")} {
			out := isoBash(t, alice, fmt.Sprintf(viewSocketClient, path))
			netFails(t, "alice: connect to "+path, out)
			netWant(t, "alice: connect to "+path, out, nil, []string{"hello from bob"})
		}
		out = isoBash(t, alice, fmt.Sprintf("ls -a ..; for p in %[1]s %[1]s/app.sock %[1]s/pipe-%[2]s %[3]s; do test -e $p && echo SEEN $p; done; echo scanned", rel, m, bob.dir))
		netWant(t, "alice: looking for bob's directory", out, []string{"scanned"}, []string{"SEEN", "bob"})
	})

	t.Run("the egress proxy's socket", func(t *testing.T) {
		socks := viewEgressSockets(t, g)
		out := isoBash(t, alice, "tr '\\0' ' ' </proc/1/cmdline")
		named := 0
		for _, sock := range socks {
			if strings.Contains(out, sock) {
				named++
			}
		}
		if named != 1 {
			t.Errorf("alice: PID 1's command line %q names %d of the proxy's sockets %v, want her own one", out, named, socks)
		}
		for _, sock := range socks { // her own, and bob's
			out = isoBash(t, alice, "test -e "+sock+" && echo SEEN; curl -sS -m 5 --unix-socket "+sock+" -o /dev/null -w 'code=%{http_code}' http://denied.test/")
			netFails(t, "alice: curl --unix-socket "+sock, out)
			netWant(t, "alice: curl --unix-socket "+sock, out, []string{"code=000"}, []string{"SEEN"})
		}
		// The bridge still reaches it: the proxy answers, and refuses.
		out = isoBash(t, alice, "curl -sS -m 10 -o /dev/null -w 'code=%{http_code}' http://denied.test/")
		netWant(t, "alice: through the bridge", out, []string{"code=403"}, nil)
	})

	t.Run("cgroups", func(t *testing.T) {
		viewNoSessionIDs(t, alice, bob)
	})

	t.Run("/dev/shm", func(t *testing.T) {
		out := isoBash(t, alice, "echo alice-shm-"+m+" > /dev/shm/x-"+m+" && cat /dev/shm/x-"+m)
		if isoExitCode(out) != 0 || !strings.Contains(out, "alice-shm-"+m) {
			t.Errorf("alice: write /dev/shm: got %q, want it written and read back", out)
		}
		netWant(t, "bob: ls /dev/shm", isoBash(t, bob, "ls -a /dev/shm; echo listed"), []string{"listed"}, []string{"x-" + m})
	})
}

// TestViewCgroupNamesHost: where commands see the host's /sys/fs/cgroup
// (--sandbox-net host), no cgroup there is named after a session.
func TestViewCgroupNamesHost(t *testing.T) {
	if why := isoCgroupWhy(); why != "" {
		t.Skip(why)
	}
	g := startIsoGateway(t, newIsoFixture(t), "--sandbox-net", "host")
	viewNoSessionIDs(t, g.open(t, authAlice, true), g.netBob(t))
}

// isoCgroupWhy says why sessions get no cgroups here, or "".
func isoCgroupWhy() string {
	_, why := isoCgroupV2Dir()
	return why
}

// viewNoSessionIDs fails if alice's commands find either session's id
// (Mcp-Session-Id, the credential that reaches a session) in the names
// under /sys/fs/cgroup or in any visible process's cgroup.
func viewNoSessionIDs(t *testing.T, alice, bob *isoSession) {
	t.Helper()
	ids := []string{alice.ID(), bob.ID()}
	if ids[0] == "" || ids[1] == "" {
		t.Fatalf("session ids: got %q, want both", ids)
	}
	out := isoBash(t, alice, "find /sys/fs/cgroup 2>/dev/null | grep -c . ; cat /proc/[0-9]*/cgroup 2>/dev/null; echo scanned")
	netWant(t, "alice: names under /sys/fs/cgroup and /proc/*/cgroup", out, []string{"scanned"}, ids)
}

// viewEgressDirRe finds the directory of the egress proxy's sockets in the
// gateway's log.
var viewEgressDirRe = regexp.MustCompile(`msg="egress proxy" dir=(\S+)`)

// viewEgressSockets returns the egress proxy's sockets, one for each open
// session's core, from the directory the log names.
func viewEgressSockets(t *testing.T, g *isoGateway) []string {
	t.Helper()
	m := viewEgressDirRe.FindStringSubmatch(g.stderr.String())
	if m == nil {
		t.Fatalf("gateway log: no egress proxy directory in:\n%s", g.stderr)
	}
	socks, _ := filepath.Glob(filepath.Join(m[1], "*.sock"))
	if len(socks) < 2 {
		t.Fatalf("egress proxy directory %s: sockets %v, want one for each open session's core", m[1], socks)
	}
	return socks
}

// TestWorkspaceGitNoTCP: the git Boris runs on workspaces (a git on PATH
// that first tries to reach a service on the host's loopback, as git
// obeying a hostile .git/config would) runs, and reaches nothing.
func TestWorkspaceGitNoTCP(t *testing.T) {
	viewNeeds(t)
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	var hits atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	dir := realTempDir(t)
	work, bin := filepath.Join(dir, "work"), filepath.Join(dir, "bin")
	writeFile(t, filepath.Join(work, "README"), "work\n")
	writeFile(t, filepath.Join(bin, "git"), fmt.Sprintf("#!/bin/bash\necho \"$*\" >> %s/git-ran 2>/dev/null\n{ exec 3<>/dev/tcp/127.0.0.1/%s; } 2>/dev/null\nexec %s \"$@\"\n",
		work, netPort(ln.Addr()), realGit))
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := startCoreWith(t, coreOptions{
		args: []string{"--workdir", work, "--workspaces-root", filepath.Join(work, "ws"), "--toolset", "all",
			"--sandbox-net", "none", "--sandbox-read", bin, "--checkpoints", "off"},
		env: []string{"PATH=" + bin + ":" + os.Getenv("PATH")},
	})
	created := wsResult[wsCreated](t, c.call("workspace_create", map[string]any{"name": "w"}))
	res := c.call("write_file", map[string]any{"workspaceId": created.WorkspaceID, "path": "a.txt", "content": "a\n"})
	if res.IsError {
		t.Fatalf("write_file in the workspace: %s", text(res))
	}
	ran, _ := os.ReadFile(filepath.Join(work, "git-ran"))
	if !strings.Contains(string(ran), "commit") {
		t.Errorf("git-ran: got %q, want the workspace's commits made through the git on PATH", ran)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the host's loopback service: got %d connections from workspace git, want 0", n)
	}
}
