package deploy

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// artifact is an entry of goreleaser's dist/artifacts.json.
type artifact struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
}

// TestReleaseSnapshot verifies a goreleaser snapshot release: four archives
// (linux, darwin x amd64, arm64) holding both binaries, README, docs/ and deploy/;
// static binaries of the right platform; the ones this machine can run
// print the stamped version and their help; checksums.txt matches.
func TestReleaseSnapshot(t *testing.T) {
	if os.Getenv("BORIS_RELEASE_CHECK") != "1" {
		t.Skip("the goreleaser snapshot build takes minutes, so `make test` leaves it out: run `make release-check` (or set BORIS_RELEASE_CHECK=1)")
	}
	dist := os.Getenv("BORIS_RELEASE_DIST")
	if dist == "" {
		dist = buildSnapshot(t)
	}
	var meta struct{ Version, Commit string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	var arts []artifact
	readJSON(t, filepath.Join(dist, "artifacts.json"), &arts)
	wantStamp := meta.Version + "+"
	if meta.Commit == "" || meta.Commit == "none" {
		t.Errorf("snapshot built without git information (commit %q): --version would not name the commit", meta.Commit)
	}

	sums := readChecksums(t, filepath.Join(dist, "checksums.txt"))
	var platforms []string
	for _, a := range arts {
		if a.Type != "Archive" {
			continue
		}
		platforms = append(platforms, a.Goos+"/"+a.Goarch)
		t.Run(a.Goos+"_"+a.Goarch, func(t *testing.T) {
			path := filepath.Join(dist, a.Name)
			checkSum(t, path, sums[a.Name])
			dir := extract(t, path)
			checkLayout(t, dir)
			for _, bin := range []string{"boris", "boris-gateway"} {
				checkStatic(t, filepath.Join(dir, bin), a.Goos, a.Goarch)
				if a.Goos == runtime.GOOS && a.Goarch == runtime.GOARCH {
					checkRuns(t, filepath.Join(dir, bin), bin+" "+wantStamp, meta.Commit)
				}
			}
		})
	}
	slices.Sort(platforms)
	want := []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}
	if !slices.Equal(platforms, want) {
		t.Errorf("archives for %v, want %v", platforms, want)
	}
}

// buildSnapshot runs goreleaser (installed by scripts/release-check.sh) in
// the repository and returns its dist directory.
func buildSnapshot(t *testing.T) string {
	t.Helper()
	gr, err := exec.LookPath("goreleaser")
	if err != nil {
		gopath, _ := exec.Command("go", "env", "GOPATH").Output()
		gr = filepath.Join(strings.TrimSpace(string(gopath)), "bin", "goreleaser")
		if !fileExists(gr) {
			t.Fatal("goreleaser not found: install it with `go install github.com/goreleaser/goreleaser/v2@v2.15.4`, or run `make release-check`")
		}
	}
	cmd := exec.Command(gr, "release", "--snapshot", "--clean", "--skip=publish")
	cmd.Dir = repoRoot
	// Without a git remote goreleaser drops the commit from the version;
	// name one in the environment only, as scripts/release-check.sh does.
	remote := exec.Command("git", "ls-remote", "--get-url")
	remote.Dir = repoRoot
	if remote.Run() != nil {
		cmd.Env = append(os.Environ(), "GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=remote.origin.url", "GIT_CONFIG_VALUE_0=https://github.com/mjkoo/boris.git")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser release --snapshot: %v\n%s", err, tail(out))
	}
	return filepath.Join(repoRoot, "dist")
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// readChecksums parses "SHA256  NAME" lines.
func readChecksums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 {
			sums[fields[1]] = fields[0]
		}
	}
	return sums
}

func checkSum(t *testing.T, path, want string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("%s: sha256 %s, checksums.txt says %q", filepath.Base(path), got, want)
	}
}

// extract unpacks a .tar.gz into a temp directory and returns the single
// directory it wraps its files in.
func extract(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	dest := t.TempDir()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if !filepath.IsLocal(h.Name) {
			t.Fatalf("%s: entry %q escapes the archive", archive, h.Name)
		}
		out := filepath.Join(dest, h.Name)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode)&0o777)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, tr); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	entries, _ := os.ReadDir(dest)
	if len(entries) != 1 || !entries[0].IsDir() {
		t.Fatalf("%s: want one top-level directory, got %d entries", filepath.Base(archive), len(entries))
	}
	return filepath.Join(dest, entries[0].Name())
}

// checkLayout: what the deployment steps (docs/deployment.md) and the
// Containerfile expect to find in an unpacked archive, and the pages the
// README links to.
func checkLayout(t *testing.T, dir string) {
	t.Helper()
	for _, rel := range []string{
		"boris", "boris-gateway", "README.md", "docs/deployment.md",
		unitPath, envExamplePath, nginxConfPath, caddyfilePath, containerfilePath,
	} {
		if !fileExists(filepath.Join(dir, rel)) {
			t.Errorf("archive lacks %s", rel)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "LICENSE*")); len(m) == 0 {
		t.Log("archive has no LICENSE file: the repository has none yet")
	}
	containerfile := filepath.Join(dir, containerfilePath)
	if !fileExists(containerfile) {
		return
	}
	for _, in := range parseContainerfile(t, readText(t, containerfile)) {
		if in.cmd != "COPY" {
			continue
		}
		srcs := strings.Fields(in.args)
		for _, src := range srcs[:len(srcs)-1] {
			if !fileExists(filepath.Join(dir, src)) {
				t.Errorf("Containerfile COPY %s: not in the archive", src)
			}
		}
	}
}

// checkStatic: a Linux binary has no interpreter and no shared libraries; a
// macOS one (Go always links libSystem there) only system libraries. Both
// are of the archive's architecture.
func checkStatic(t *testing.T, path, goos, goarch string) {
	t.Helper()
	name := goos + "/" + goarch + " " + filepath.Base(path)
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			t.Fatalf("%s: not ELF: %v", name, err)
		}
		defer f.Close()
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want {
			t.Errorf("%s: machine %v, want %v", name, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: has a program interpreter: dynamically linked", name)
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("%s: needs shared libraries %v", name, libs)
		}
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			t.Fatalf("%s: not Mach-O: %v", name, err)
		}
		defer f.Close()
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want {
			t.Errorf("%s: cpu %v, want %v", name, f.Cpu, want)
		}
		libs, _ := f.ImportedLibraries()
		for _, l := range libs {
			if !strings.HasPrefix(l, "/usr/lib/") && !strings.HasPrefix(l, "/System/Library/") {
				t.Errorf("%s: links %s, not a system library", name, l)
			}
		}
	default:
		t.Errorf("%s: unexpected OS", name)
	}
}

// checkRuns: --version prints the stamped version, "NAME VERSION+COMMIT"
// (an unstamped build says "NAME dev"), and --help succeeds.
func checkRuns(t *testing.T, bin, wantPrefix, commit string) {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	got := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(got, wantPrefix) {
		t.Errorf("%s --version: %q (%v), want %q followed by the commit", filepath.Base(bin), got, err, wantPrefix)
	} else if short := strings.TrimPrefix(got, wantPrefix); short == "" || !strings.HasPrefix(commit, short) {
		t.Errorf("%s --version: %q names commit %q, want a prefix of %s", filepath.Base(bin), got, short, commit)
	}
	t.Logf("%s --version: %s", filepath.Base(bin), got)
	cmd := exec.Command(bin, "--help")
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Usage:") {
		t.Errorf("%s --help: %v\n%s", filepath.Base(bin), err, out)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
