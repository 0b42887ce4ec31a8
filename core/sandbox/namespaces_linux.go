package sandbox

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mjkoo/boris/internal/netns"
)

// setupNamespaces sets up the namespaces the spawner was born in and,
// confined by Landlock, gives it the private root of its rules
// (netns.PrivateRoot): what it grants is all its commands will find. It
// returns the host's /proc, opened before it is covered.
func setupNamespaces(c *spawnerConfig) (int, error) {
	hostProc, err := netns.OpenHostProc()
	if err != nil {
		return -1, err
	}
	if err := netns.Setup(); err != nil {
		return hostProc, err
	}
	if c.landlock {
		if err := privateRoot(c); err != nil {
			return hostProc, err
		}
	}
	// Landlock must let the spawner read the host's /proc, which the new
	// one now covers: by its descriptor, the only way to it.
	c.spec.Read = append(c.spec.Read, "/proc/self/fd/"+strconv.Itoa(hostProc))
	return hostProc, nil
}

// privateRoot adds the session's own /dev/shm to what commands may write,
// keeps the egress socket by a descriptor (its path will not be there,
// for commands nor for the bridge), and builds the private root.
func privateRoot(c *spawnerConfig) error {
	if fi, err := os.Stat(shmDir); err == nil && fi.IsDir() {
		c.spec.Write = append(c.spec.Write, shmDir)
	}
	if c.egress != "" {
		fd, err := unix.Open(c.egress, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("egress socket %s: %w", c.egress, err)
		}
		c.egress = "/proc/self/fd/" + strconv.Itoa(fd)
	}
	return netns.PrivateRoot(netns.View{
		Read: c.spec.Read, ReadFiles: c.spec.ReadFiles, Write: c.spec.Write, Files: c.spec.Files,
		Links: netns.Links(SystemReadDirs),
	})
}

// shmDir is POSIX shared memory's directory: in a session's namespaces, a
// tmpfs of its own (netns.Setup), which its commands may write.
const shmDir = "/dev/shm"
