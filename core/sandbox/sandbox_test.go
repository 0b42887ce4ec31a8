package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMain lets the test binary act as the helper, as boris does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(RunHelper(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == SpawnerArg {
		os.Exit(RunSpawner(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func TestSpecRoundTrip(t *testing.T) {
	spec := Spec{Read: []string{"/usr", "/etc"}, ReadFiles: []string{"/home/u/.gitconfig"}, Write: []string{"/w", "/tmp/x"}, Files: []string{"/dev/null"}}
	args := append(encodeSpec(spec), "--", "/bin/sh", "-c", "true")
	got, argv, err := decodeSpec(args)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spec, got); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/bin/sh", "-c", "true"}, argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
}

func TestDecodeSpecErrors(t *testing.T) {
	for _, args := range [][]string{
		{"r:/usr"},             // no --
		{"r:/usr", "--"},       // no command
		{"r:usr", "--", "sh"},  // relative path
		{"x:/usr", "--", "sh"}, // unknown kind
		{"/usr", "--", "sh"},   // no kind
	} {
		if _, _, err := decodeSpec(args); err == nil {
			t.Errorf("decodeSpec(%q): got no error, want one", args)
		}
	}
}

func TestPrune(t *testing.T) {
	got := prune([]string{"/usr", "/usr/bin", "/etc", "/usr", "/etcetera"})
	if diff := cmp.Diff([]string{"/usr", "/etc", "/etcetera"}, got); diff != "" {
		t.Errorf("prune (-want +got):\n%s", diff)
	}
}

func TestModes(t *testing.T) {
	noLandlock := []string{abiOverrideEnv + "=0"}
	tests := []struct {
		mode     string
		environ  []string
		enforced bool
		err      error
	}{
		{ModeOff, nil, false, nil},
		{ModeAuto, noLandlock, false, nil},
		{ModeRequired, noLandlock, false, ErrUnavailable},
	}
	for _, tt := range tests {
		s, err := New(Options{Mode: tt.mode, Environ: tt.environ})
		if !errors.Is(err, tt.err) {
			t.Errorf("mode %s: got error %v, want %v", tt.mode, err, tt.err)
			continue
		}
		if err == nil && s.Enforced() != tt.enforced {
			t.Errorf("mode %s: got enforced %v, want %v", tt.mode, s.Enforced(), tt.enforced)
		}
		if err == nil && !s.Enforced() && !s.Readable("/etc/shadow") {
			t.Errorf("mode %s: unconfined commands read everything, Readable says no", tt.mode)
		}
	}
}

// TestHelperConfines runs commands through the helper: what the spec grants
// works, everything else is refused by the kernel, and the private
// temporary directory is writable and removed by Close.
func TestHelperConfines(t *testing.T) {
	if abiVersion(nil) < 1 {
		t.Skip("needs Landlock (Linux 5.13+ with landlock enabled); this kernel has none")
	}
	root := t.TempDir()
	allowed, other := filepath.Join(root, "allowed"), filepath.Join(root, "other")
	for _, d := range []string{allowed, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "secret"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Allowed: []string{allowed}, MakeTempDir: true, Environ: []string{"TMPDIR=" + root}})
	if err != nil {
		t.Fatal(err)
	}
	tmp := s.TempDir()
	tests := []struct {
		script string
		ok     bool
	}{
		{"echo hi > " + allowed + "/f && cat " + allowed + "/f", true},
		{"echo hi > $TMPDIR/f && cat $TMPDIR/f", true},
		{"cat /etc/hostname >/dev/null || cat /etc/passwd >/dev/null", true},
		{"cat " + other + "/secret", false},
		{"ls " + other, false},
		{"echo x > " + other + "/new", false},
		{"ln " + allowed + "/f " + other + "/link", false},
		{"mv " + allowed + "/f " + other + "/moved", false},
		{"kill -0 " + strconv.Itoa(os.Getpid()), false}, // outside the domain (ABI 6+)
		// No capabilities, even as root: Landlock's ptrace rule alone lets
		// CAP_SYS_ADMIN read other processes' /proc/PID/environ.
		{"grep -q '^CapEff:[[:space:]]*0*$' /proc/self/status && grep -q '^CapBnd:[[:space:]]*0*$' /proc/self/status", true},
		{"cat /proc/" + strconv.Itoa(os.Getppid()) + "/environ", false},
	}
	for _, tt := range tests {
		if strings.HasPrefix(tt.script, "kill") && abiVersion(nil) < 6 {
			continue
		}
		argv := s.Wrap([]string{"/bin/sh", "-c", tt.script})
		argv[0] = os.Args[0] // the test binary plays boris
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = s.Env(os.Environ())
		out, err := cmd.CombinedOutput()
		if (err == nil) != tt.ok {
			t.Errorf("%s: got err %v (%s), want ok=%v", tt.script, err, out, tt.ok)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("private TMPDIR %s after Close: got %v, want it gone", tmp, err)
	}
}
