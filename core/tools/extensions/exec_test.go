package extensions

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtEnvInterpreter(t *testing.T) {
	for _, tc := range []struct {
		name, first string
		want        string
	}{
		{"env bash", "#!/usr/bin/env bash\n", "bash"},
		{"spaces and tabs", "#! \t/usr/bin/env \t bash \t\n", "bash"},
		{"bin env", "#!/bin/env bash\n", "bash"},
		{"python", "#!/usr/bin/env python3\n", "python3"},
		{"direct", "#!/bin/bash\n", ""},
		{"option", "#!/usr/bin/env -S bash -e\n", ""},
		{"two words", "#!/usr/bin/env bash -e\n", ""}, // env would look for "bash -e"
		{"carriage return", "#!/usr/bin/env bash\r\n", ""},
		{"a path", "#!/usr/bin/env ./bash\n", ""},
		{"no name", "#!/usr/bin/env\n", ""},
		{"no shebang", "echo hi\n", ""},
		{"one line, no newline", "#!/usr/bin/env bash", ""}, // left to the kernel
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tool.sh")
			if err := os.WriteFile(p, []byte(tc.first), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, env := range []string{"/usr/bin/env", "/bin/env"} {
				if _, err := os.Stat(env); err != nil && tc.want != "" {
					t.Skipf("no %s here", env)
				}
			}
			if got := extEnvInterpreter(p); got != tc.want {
				t.Errorf("extEnvInterpreter(%q) = %q, want %q", tc.first, got, tc.want)
			}
		})
	}
}

func TestExtEnvInterpreterNotExecutable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tool.sh")
	if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := extEnvInterpreter(p); got != "" {
		t.Errorf("a script without an execute bit: got %q, want \"\" (the kernel refuses it, so must we)", got)
	}
}

func TestExtLookPath(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "plain"), 0o644) // not executable: skipped, as execvp does
	write(filepath.Join(b, "plain"), 0o755)
	write(filepath.Join(b, "tool"), 0o755)
	if err := os.Mkdir(filepath.Join(a, "tool"), 0o755); err != nil { // a directory: skipped
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"tool", a + ":" + b, filepath.Join(b, "tool")},
		{"plain", a + ":" + b, filepath.Join(b, "plain")},
		{"missing", a + ":" + b, ""},
		{"tool", "", ""},
		{"tool", a + "::" + b, ""},                          // an empty entry is the working directory
		{"tool", "rel:" + b, ""},                            // so is a relative one
		{"tool", b + ":" + "rel", filepath.Join(b, "tool")}, // found before it
	} {
		if got := extLookPath(tc.name, tc.path); got != tc.want {
			t.Errorf("extLookPath(%q, %q) = %q, want %q", tc.name, tc.path, got, tc.want)
		}
	}
}

// TestExtArgvSameAsKernel runs a `#!/usr/bin/env bash` script as the
// kernel does and through extArgv, and compares what it sees.
func TestExtArgvSameAsKernel(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil || !extSystemBinary(bash) {
		t.Skip("bash is not in a system directory on PATH here")
	}
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Skip("no /usr/bin/env here")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "tool.sh")
	script := "#!/usr/bin/env bash\nprintf '%s|' \"$0\" \"${BASH_SOURCE[0]}\" \"$#\" \"$*\" \"$PWD\" \"${MCP_X-}\"\ncat\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Dir(bash) + ":/usr/bin:/bin", "MCP_X=1"}
	argv := extArgv(p, env)
	if want := []string{bash, p}; !cmp.Equal(argv, want) {
		t.Fatalf("extArgv = %q, want %q", argv, want)
	}
	run := func(argv []string) string {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", argv, err, out)
		}
		return string(out)
	}
	if kernel, direct := run([]string{p}), run(argv); kernel != direct {
		t.Errorf("the script saw %q run through env, %q run by extArgv", kernel, direct)
	}
}

// TestExtArgvWithoutExecuteBit: a script without the execute bit runs as
// `bash path`, with a bash from the system directories only.
func TestExtArgvWithoutExecuteBit(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil || !extSystemBinary(bash) {
		t.Skip("bash is not in a system directory on PATH here")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin")
	if err := os.Mkdir(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "bash"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(script, []byte("#!/usr/bin/env bash\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "tool.py")
	if err := os.WriteFile(other, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, pathEnv string
		want                []string
	}{
		{"system bash", script, filepath.Dir(bash), []string{bash, script}},
		{"a bash elsewhere first on PATH", script, fake + ":" + filepath.Dir(bash), []string{"/bin/bash", script}},
		{"no bash on PATH", script, fake, []string{"/bin/bash", script}},
		{"not a script: left to the kernel, which refuses it", other, filepath.Dir(bash), []string{other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := extArgv(tc.path, []string{"PATH=" + tc.pathEnv}); !cmp.Equal(got, tc.want) {
				t.Errorf("extArgv = %q, want %q", got, tc.want)
			}
		})
	}
}
