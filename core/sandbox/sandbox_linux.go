package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// selfExe re-executes the running binary, even if it was replaced or
// removed on disk since the core started.
const selfExe = "/proc/self/exe"

// abiVersion returns the kernel's Landlock ABI version, 0 when Landlock is
// unavailable, or the override from the environment.
func abiVersion(environ []string) int {
	for _, kv := range environ {
		if v, ok := cutPrefix(kv, abiOverrideEnv+"="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return n
			}
		}
	}
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// config is the newest Landlock configuration go-landlock knows, minus
// network rules (commands keep their network), downgraded by BestEffort to
// what the kernel offers.
var config = landlock.Config{
	HandledAccessFS: landlock.V11.HandledAccessFS,
	Scoped:          landlock.V11.Scoped,
}.BestEffort()

// restrict confines this process (every thread) to spec. It also sets
// no_new_privs, so no setuid program can leave the domain.
func restrict(spec Spec) error {
	rules := []landlock.Rule{
		landlock.RODirs(spec.Read...).IgnoreIfMissing(),
		landlock.ROFiles(spec.ReadFiles...).IgnoreIfMissing(),
		// Refer lets files move between writable directories (mv, go
		// build's cache); ResolveUnix lets commands use UNIX sockets their
		// own servers create there.
		landlock.RWDirs(spec.Write...).WithRefer().WithResolveUnix().IgnoreIfMissing(),
		landlock.RWFiles(spec.Files...).IgnoreIfMissing(),
	}
	if err := config.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// execve replaces the helper with the command, looked up like a shell would.
func execve(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	err = syscall.Exec(path, argv, os.Environ())
	return errors.Join(fmt.Errorf("exec %s", path), err)
}
