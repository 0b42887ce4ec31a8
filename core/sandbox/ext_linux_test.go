package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSpawnerExtensionDomain: with an extension area, an extension tool
// the spawner starts may write the area; a command it starts may neither
// write nor read it, nor read the running extension tool's environment,
// nor signal it; the extension tool may do all of that to the command.
func TestSpawnerExtensionDomain(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
	}
	root := t.TempDir()
	allowed := filepath.Join(root, "allowed")
	if err := os.Mkdir(allowed, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Allowed: []string{allowed}, ExtensionRoot: filepath.Join(root, "state", "ext")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	area := s.ExtDir()
	if area == "" || !strings.HasPrefix(area, filepath.Join(root, "state", "ext")+"/") {
		t.Fatalf("extension area: got %q, want one under the extension root", area)
	}
	sp, err := s.StartSpawner(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Close)
	start := func(ext bool, script string) (int, <-chan syscall.WaitStatus, string) {
		t.Helper()
		out, err := os.CreateTemp(allowed, "out")
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		null, _ := os.Open(os.DevNull)
		defer null.Close()
		startFn := sp.Start
		if ext {
			startFn = sp.StartExtension
		}
		pid, wait, err := startFn([]string{"/bin/sh", "-c", script}, allowed, []string{"PATH=/usr/bin:/bin", "SECRET=extension-secret"}, [3]*os.File{null, out, out})
		if err != nil {
			t.Fatal(err)
		}
		return pid, wait, out.Name()
	}
	run := func(ext bool, script string) string {
		t.Helper()
		_, wait, out := start(ext, script)
		<-wait
		data, _ := os.ReadFile(out)
		return string(data)
	}
	if got := run(true, "echo x > "+area+"/f && cat "+area+"/f"); got != "x\n" {
		t.Errorf("extension tool writing the area: got %q, want x", got)
	}
	if got := run(false, "(echo y > "+area+"/g) 2>/dev/null || echo refused; cat "+area+"/f 2>/dev/null || echo unreadable"); got != "refused\nunreadable\n" {
		t.Errorf("command writing and reading the area: got %q, want both refused", got)
	}
	// A running extension tool: a command can neither read its
	// environment nor signal it.
	pid, wait, _ := start(true, "sleep 30")
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL); <-wait }()
	p := strconv.Itoa(pid)
	got := run(false, "cat /proc/"+p+"/environ 2>/dev/null | tr '\\0' '\\n' | grep -c SECRET=; kill -0 "+p+" 2>/dev/null && echo signalled || echo unsignalled")
	if strings.Contains(got, "signalled\n") && !strings.Contains(got, "unsignalled") || !strings.HasPrefix(got, "0\n") {
		t.Errorf("command reaching a running extension tool (pid %s): got %q, want its environ unreadable and no signal", p, got)
	}
}
