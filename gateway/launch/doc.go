// Package launch provides the starting and stopping of boris cores: a core
// process and its pipes (Core, Spawn), started from one pinned thread so
// the kernel kills it with the gateway (Spawner), inside its session's
// cgroup when there is one, stopped with its process group and whatever
// it left behind; the pool of cores started ahead of the sessions that will
// take them (WarmPool); how a core is started (Spec: its arguments,
// environment and cgroup, and the helpers that compose them without losing
// the operator's own settings); and what is enforced around every core
// (Isolation).
//
// What a principal's core is started with (its scopes, working directory,
// board and state) is the gateway's decision; this package starts what it
// is given. It may import the standard library, golang.org/x/sys/unix,
// internal/cgroup, internal/flagenv, internal/procstat and
// internal/reaper; never package gateway or another of its packages (see
// the gateway's TestImports).
package launch
