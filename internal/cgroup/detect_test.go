package cgroup

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Samples of /proc/self/cgroup.
const (
	hybridCgroup = `9:name=systemd:/
8:pids:/
4:memory:/process_api/2a763532002d56962edf516c3a8cc0bb
1:cpu,cpuacct:/
0::/
`
	unifiedCgroup = "0::/system.slice/boris-gateway.service\n"
	v1OnlyCgroup  = `12:pids:/user.slice/user-1000.slice
11:memory:/user.slice/user-1000.slice
1:name=systemd:/user.slice/user-1000.slice/session-2.scope
`
)

// Samples of /proc/self/mountinfo.
const (
	hybridMounts = `23 1 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	unifiedMounts = `24 1 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
33 24 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`
	// A container whose cgroup is bind-mounted at /sys/fs/cgroup, without a
	// cgroup namespace: the mount's root is the container's cgroup.
	containerMounts = `1201 1190 0:28 /system.slice/docker-abc.scope /sys/fs/cgroup ro,nosuid,nodev,noexec,relatime master:9 - cgroup2 cgroup rw,nsdelegate
`
	v1OnlyMounts = `39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
`
	escapedMounts = `50 24 0:28 / /mnt/my\040cgroups\134v2 rw,relatime shared:9 master:1 - cgroup2 none rw
`
)

func TestOwnCgroup(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"hybrid", hybridCgroup, "/"},
		{"unified", unifiedCgroup, "/system.slice/boris-gateway.service"},
		{"no final newline", "0::/a/b", "/a/b"},
		{"v1 only", v1OnlyCgroup, ""},
		{"deleted", "0::/gone (deleted)\n", ""},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ownCgroup(tc.data)
			if tc.want == "" {
				if !errors.Is(err, ErrUnavailable) {
					t.Fatalf("ownCgroup = %q, %v; want an error wrapping ErrUnavailable", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ownCgroup = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestV1Controllers(t *testing.T) {
	want := []string{"pids", "memory", "cpu", "cpuacct"}
	if diff := cmp.Diff(want, v1Controllers(hybridCgroup)); diff != "" {
		t.Errorf("v1Controllers (-want +got):\n%s", diff)
	}
	if got := v1Controllers(unifiedCgroup); len(got) != 0 {
		t.Errorf("v1Controllers of a unified host = %q, want none", got)
	}
}

func TestCgroup2Mounts(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []mount
	}{
		{"hybrid", hybridMounts, []mount{{"/", "/sys/fs/cgroup/unified"}}},
		{"unified", unifiedMounts, []mount{{"/", "/sys/fs/cgroup"}}},
		{"container", containerMounts, []mount{{"/system.slice/docker-abc.scope", "/sys/fs/cgroup"}}},
		{"v1 only", v1OnlyMounts, nil},
		{"escaped", escapedMounts, []mount{{"/", `/mnt/my cgroups\v2`}}},
		{"truncated", "41 31 0:38 /\n41 31 - cgroup2 cgroup2 rw\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, cgroup2Mounts(tc.data), cmp.AllowUnexported(mount{})); diff != "" {
				t.Errorf("cgroup2Mounts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		name, cgroup, mounts, want string
	}{
		{"hybrid", hybridCgroup, hybridMounts, "/sys/fs/cgroup/unified"},
		{"systemd service", unifiedCgroup, unifiedMounts, "/sys/fs/cgroup/system.slice/boris-gateway.service"},
		{"container root", "0::/system.slice/docker-abc.scope\n", containerMounts, "/sys/fs/cgroup"},
		{"below container root", "0::/system.slice/docker-abc.scope/app\n", containerMounts, "/sys/fs/cgroup/app"},
		{"sibling of container root", "0::/system.slice/docker-abcd.scope\n", containerMounts, ""},
		{"escaped mount point", "0::/s\n", escapedMounts, `/mnt/my cgroups\v2/s`},
		{"no cgroup2 mount", unifiedCgroup, v1OnlyMounts, ""},
		{"v1 only", v1OnlyCgroup, v1OnlyMounts, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolve(tc.cgroup, tc.mounts)
			if tc.want == "" {
				if !errors.Is(err, ErrUnavailable) {
					t.Fatalf("resolve = %q, %v; want an error wrapping ErrUnavailable", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("resolve = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		l  Limits
		ok bool
	}{
		{Limits{}, true},
		{Limits{PidsMax: 1, MemoryMax: 1, CPUWeight: 1}, true},
		{Limits{CPUWeight: 10000}, true},
		{Limits{PidsMax: -1}, false},
		{Limits{MemoryMax: -1}, false},
		{Limits{CPUWeight: -1}, false},
		{Limits{CPUWeight: 10001}, false},
	} {
		if err := tc.l.validate(); (err == nil) != tc.ok {
			t.Errorf("%+v.validate() = %v, want ok=%v", tc.l, err, tc.ok)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, ok := range map[string]bool{
		"s-1f3a": true, "a.b": true, "": false, ".": false, "..": false, "a/b": false, "../x": false, "a\x00": false,
	} {
		if err := validName(name); (err == nil) != ok {
			t.Errorf("validName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
