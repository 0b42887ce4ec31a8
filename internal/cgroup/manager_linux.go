package cgroup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Manager creates and removes the session groups of one gateway. Its
// methods are safe for concurrent use.
type Manager struct {
	log  *slog.Logger
	info Info
	dir  string // the sessions directory
	lock int    // fd of dir, holding its flock

	mu     sync.Mutex
	groups map[string]*Group
	closed bool
}

// Open prepares the sessions directory under opts.Root: it checks that
// cgroup v2 can be used there (errors wrap ErrUnavailable when not) and
// that the limits' controllers are available (ErrNoController), takes the
// directory over from any gateway that died without Close by killing
// what it left, and enables the controllers the limits need. See the
// package comment for the layout.
func Open(opts Options) (*Manager, error) {
	if err := opts.Limits.validate(); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root, err := rootDir(opts.Root)
	if err != nil {
		return nil, err
	}
	ctrls := opts.Limits.controllers()
	if err := checkControllers(root, ctrls); err != nil {
		return nil, err
	}
	m := &Manager{log: log, lock: -1, groups: map[string]*Group{}}
	if err := m.claim(root); err != nil {
		return nil, err
	}
	if len(ctrls) > 0 {
		if err := m.enable(root, ctrls); err != nil {
			_ = m.Close()
			return nil, err
		}
	}
	m.info = Info{Path: m.dir, Controllers: append([]string{}, ctrls...), Limits: opts.Limits}
	return m, nil
}

// rootDir returns root, or the calling process's own cgroup when root is
// empty, after checking that it is a directory of a cgroup2 file system.
func rootDir(root string) (string, error) {
	if root == "" {
		procCgroup, err := os.ReadFile("/proc/self/cgroup")
		if err != nil {
			return "", fmt.Errorf("%w: read own cgroup: %w", ErrUnavailable, err)
		}
		mountinfo, err := os.ReadFile("/proc/self/mountinfo")
		if err != nil {
			return "", fmt.Errorf("%w: read mounts: %w", ErrUnavailable, err)
		}
		if root, err = resolve(string(procCgroup), string(mountinfo)); err != nil {
			return "", err
		}
	}
	root = filepath.Clean(root)
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err != nil {
		return "", fmt.Errorf("%w: cgroup root %s: %w", ErrUnavailable, root, err)
	}
	if st.Type != unix.CGROUP2_SUPER_MAGIC {
		return "", fmt.Errorf("%w: cgroup root %s is not in a cgroup2 file system", ErrUnavailable, root)
	}
	return root, nil
}

// checkControllers fails, naming them, when controllers the limits need
// are not in root's cgroup.controllers: the parent of root has not
// delegated them, or the host binds them to a cgroup v1 hierarchy.
func checkControllers(root string, need []string) error {
	if len(need) == 0 {
		return nil
	}
	have, err := readFields(filepath.Join(root, "cgroup.controllers"))
	if err != nil {
		return fmt.Errorf("%w: list controllers: %w", ErrUnavailable, err)
	}
	var missing []string
	for _, c := range need {
		if !slices.Contains(have, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	it, word, offers := "it", "controller", strings.Join(have, " ")
	if len(missing) > 1 {
		it, word = "them", "controllers"
	}
	if offers == "" {
		offers = "none"
	}
	how := fmt.Sprintf("delegate %s to the gateway (systemd: Delegate=yes in its unit) or enable %s in %s", it, it, filepath.Join(filepath.Dir(root), "cgroup.subtree_control"))
	procCgroup, _ := os.ReadFile("/proc/self/cgroup")
	if v1 := v1Controllers(string(procCgroup)); slices.ContainsFunc(missing, func(c string) bool { return slices.Contains(v1, c) }) {
		how = "this host binds " + it + " to cgroup v1 (hybrid mode): boot the host with systemd.unified_cgroup_hierarchy=1"
	}
	return fmt.Errorf("%w: the session limits need the %s %s, which %s does not offer (it offers: %s): %s, or drop the limits",
		ErrNoController, strings.Join(missing, " and "), word, root, offers, how)
}

// maxGateways bounds the sessions directories one root holds: one per
// gateway running on it at once.
const maxGateways = 64

// errBusy is lockDir's error when a live gateway holds the directory.
var errBusy = errors.New("cgroup: sessions directory in use by another boris-gateway")

// claim takes the first sessions directory under root that no live
// gateway holds (boris-sessions, boris-sessions-2, ...), so several
// gateways can share one root, and kills what dead gateways left in every
// directory it can lock on the way: its own, and the stale ones after it.
func (m *Manager) claim(root string) error {
	for i := 1; i <= maxGateways; i++ {
		m.dir = sessionsPath(root, i)
		err := m.lockDir()
		if errors.Is(err, errBusy) {
			continue
		}
		if err != nil {
			return err
		}
		m.killStale(slog.LevelWarn)
		m.sweepOthers(root, i)
		return nil
	}
	return fmt.Errorf("cgroup: %d boris-gateways already use %s: give this one its own cgroup root", maxGateways, root)
}

func sessionsPath(root string, i int) string {
	if i == 1 {
		return filepath.Join(root, sessionsDir)
	}
	return filepath.Join(root, sessionsDir+"-"+strconv.Itoa(i))
}

// sweepOthers cleans the sessions directories after the claimed one that
// no live gateway holds, and removes them. Their groups are other
// gateways' leftovers: one line says what was killed, only when
// processes were.
func (m *Manager) sweepOthers(root string, claimed int) {
	dirs, groups, procs := 0, 0, 0
	for i := claimed + 1; i <= maxGateways; i++ {
		if _, err := os.Stat(sessionsPath(root, i)); err != nil {
			continue
		}
		other := &Manager{log: m.log, dir: sessionsPath(root, i), lock: -1}
		if other.lockDir() != nil {
			continue // a live gateway's, or not ours to clean
		}
		g, p := other.killStale(slog.LevelDebug)
		dirs, groups, procs = dirs+1, groups+g, procs+p
		other.removeDir()
		_ = unix.Close(other.lock)
	}
	if procs > 0 {
		m.log.Info("killed processes left in other, dead gateways' session cgroups", "root", root,
			"directories", dirs, "groups", groups, "processes", procs)
	}
}

// lockDir creates the sessions directory if need be and takes an
// exclusive flock on it, for as long as this process keeps m.lock open.
// It fails with errBusy when a live gateway holds it.
func (m *Manager) lockDir() error {
	for range 3 {
		err := os.Mkdir(m.dir, 0o755)
		switch {
		case errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EROFS):
			return fmt.Errorf("%w: create %s: %w (the gateway needs write access to its cgroup: run it as root or with systemd Delegate=yes)", ErrUnavailable, m.dir, err)
		case err != nil && !errors.Is(err, fs.ErrExist):
			return fmt.Errorf("%w: create %s: %w", ErrUnavailable, m.dir, err)
		}
		if _, err := os.Stat(filepath.Join(m.dir, "cgroup.kill")); err != nil {
			m.removeDir()
			return fmt.Errorf("%w: %s has no cgroup.kill (the kernel needs Linux 5.14 or later): %w", ErrUnavailable, m.dir, err)
		}
		fd, err := unix.Open(m.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%w: open %s: %w", ErrUnavailable, m.dir, err)
		}
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			_ = unix.Close(fd)
			if errors.Is(err, unix.EWOULDBLOCK) {
				return fmt.Errorf("%w: %s", errBusy, m.dir)
			}
			return fmt.Errorf("cgroup: lock %s: %w", m.dir, err)
		}
		// The gateway that held the lock may have removed the directory
		// after we opened it, in its Close; lock the new one then.
		if sameDir(fd, m.dir) {
			if err := usable(fd, m.dir); err != nil {
				_ = unix.Close(fd)
				return err
			}
			m.lock = fd
			return nil
		}
		_ = unix.Close(fd)
	}
	return fmt.Errorf("cgroup: lock %s: it keeps being removed and created again", m.dir)
}

// usable fails, wrapping ErrUnavailable, unless the sessions directory
// open at fd (path) is one this process owns and may write: a directory
// left by a gateway that ran as another user (root, say) can be locked
// but not used, and every session would fail to create its group in it.
// It is checked for its owner (the effective uid) and, as the kernel will
// decide each write, for write access to it and its cgroup.procs.
func usable(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%w: stat %s: %w", ErrUnavailable, path, err)
	}
	if euid := os.Geteuid(); int(st.Uid) != euid {
		return fmt.Errorf("%w: %w: %s belongs to uid %d, not to this gateway's uid %d (left by a gateway that ran as another user): "+
			"remove it (rmdir, as its owner or root) or give this gateway a cgroup root of its own (--cgroup-root)", ErrUnavailable, ErrNotOwned, path, st.Uid, euid)
	}
	for _, p := range []string{path, filepath.Join(path, "cgroup.procs")} {
		if err := unix.Faccessat(unix.AT_FDCWD, p, unix.W_OK, unix.AT_EACCESS); err != nil {
			return fmt.Errorf("%w: %w: %s is not writable by this gateway: %w", ErrUnavailable, ErrNotOwned, p, err)
		}
	}
	return nil
}

// sameDir reports whether fd is the directory that is now at path.
func sameDir(fd int, path string) bool {
	var a, b unix.Stat_t
	return unix.Fstat(fd, &a) == nil && unix.Stat(path, &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// killStale kills and removes the session groups of a gateway that died
// without Close, and returns how many groups and processes it killed.
// Each is logged at level: a warning in the directory this gateway
// claimed (its own earlier run's), debug in the others a sweep cleans
// (other gateways', not this one's news). Failures are logged as errors:
// a group that cannot be removed (a process stuck in the kernel) must not
// keep the gateway from starting.
func (m *Manager) killStale(level slog.Level) (groups, procs int) {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		m.log.Error("cannot list stale session cgroups", "path", m.dir, "err", err)
		return 0, 0
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(m.dir, e.Name())
		pids, _ := readPids(filepath.Join(p, "cgroup.procs"))
		if err := kill(p); err != nil {
			m.log.Error("cannot remove a stale session cgroup", "path", p, "err", err)
			continue
		}
		groups, procs = groups+1, procs+len(pids)
		m.log.Log(context.Background(), level, "killed and removed a stale session cgroup left by an earlier gateway", "path", p, "processes", len(pids))
	}
	return groups, procs
}

// enable enables ctrls for the session groups: in root's subtree_control,
// moving the calling process out of root when it holds it, then in the
// sessions directory's.
func (m *Manager) enable(root string, ctrls []string) error {
	err := enableControllers(root, ctrls)
	if errors.Is(err, unix.EBUSY) && selfIn(root) {
		if err := m.leaveRoot(root); err != nil {
			return err
		}
		err = enableControllers(root, ctrls)
	}
	if errors.Is(err, unix.EBUSY) {
		pids, _ := readPids(filepath.Join(root, "cgroup.procs"))
		return fmt.Errorf("cgroup: enable controllers in %s: processes %v remain in it, and a cgroup with processes cannot give controllers to its children: move them into a leaf cgroup: %w", root, pids, err)
	}
	if err != nil {
		return err
	}
	return enableControllers(m.dir, ctrls)
}

// selfIn reports whether the calling process is in the cgroup at dir.
func selfIn(dir string) bool {
	own, err := rootDir("")
	if err != nil {
		return false
	}
	a, err1 := os.Stat(own)
	b, err2 := os.Stat(dir)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// leaveRoot moves the calling process into the leaf <root>/boris-gateway.
func (m *Manager) leaveRoot(root string) error {
	leaf := filepath.Join(root, gatewayLeaf)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("cgroup: create the gateway's leaf cgroup: %w", err)
	}
	if err := writeFile(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
		return fmt.Errorf("cgroup: move the gateway into %s: %w", leaf, err)
	}
	m.log.Info("moved the gateway into a leaf cgroup, so that its cgroup can give controllers to the sessions", "path", leaf)
	return nil
}

func enableControllers(dir string, ctrls []string) error {
	add := "+" + strings.Join(ctrls, " +")
	if err := writeFile(filepath.Join(dir, "cgroup.subtree_control"), add); err != nil {
		return fmt.Errorf("cgroup: enable controllers (%s) in %s: %w", add, dir, err)
	}
	return nil
}

// Info reports what m enforces.
func (m *Manager) Info() Info {
	i := m.info
	i.Controllers = slices.Clone(i.Controllers)
	return i
}

// New creates the session group <sessions>/<name>, writes the limits into
// it and opens it for Group.FD. name must be one path element, unique
// among m's live groups.
func (m *Manager) New(name string) (*Group, error) {
	if err := validName(name); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("cgroup: create a session group: the manager is closed")
	}
	g, err := newGroup(m, filepath.Join(m.dir, name), m.info.Limits)
	if err != nil {
		return nil, err
	}
	m.groups[name] = g
	return g, nil
}

func (m *Manager) forget(g *Group) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.groups[filepath.Base(g.path)] == g {
		delete(m.groups, filepath.Base(g.path))
	}
}

// Close kills and removes every group m created that is still there,
// then the sessions directory when it is empty, and gives it up to the
// next gateway. New fails after Close. The error joins those of the
// groups that could not be removed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	groups := make([]*Group, 0, len(m.groups))
	for _, g := range m.groups {
		groups = append(groups, g)
	}
	m.mu.Unlock()

	var errs []error
	for _, g := range groups {
		errs = append(errs, g.Kill())
	}
	m.removeDir()
	if m.lock >= 0 {
		_ = unix.Close(m.lock)
	}
	return errors.Join(errs...)
}

// removeDir removes the sessions directory if it is empty; a failure is
// logged, since what is left will be cleaned by the next Open.
func (m *Manager) removeDir() {
	err := unix.Rmdir(m.dir)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		m.log.Warn("left the sessions cgroup in place", "path", m.dir, "err", err)
	}
}
