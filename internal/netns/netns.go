// Package netns provides the namespaces a session's commands run in
// (docs/reference/security.md#network-modes, "Tenants neither see nor reach each other"): a PID namespace
// with a private /proc, an IPC namespace with a private /dev/shm, a mount
// namespace to hold those mounts and a private root that holds only what
// the session's rules grant (PrivateRoot), and a network namespace whose
// only interface is its own loopback.
//
// The namespaces are made by clone(2) when the sandbox's spawner starts
// (Attr), and the spawner sets them up from inside (Setup) before it
// confines itself with Landlock and starts the session's commands. A Go
// process cannot unshare a user namespace once its runtime has started
// threads, so nothing here unshares after the fact.
//
// Without CAP_SYS_ADMIN (an ordinary user), the clone adds a user
// namespace that maps only the caller's own uid and gid to themselves:
// files keep their owners, commands keep their user, and the capabilities
// the set-up needs exist only inside the new namespaces, for the moment
// before the spawner drops them all.
package netns

import "errors"

// Network modes of --sandbox-net.
const (
	// Host is the host's network, shared with everything else on it, and
	// no namespaces at all: today's behaviour, for local single-user use.
	Host = "host"
	// None is a private loopback only.
	None = "none"
	// Proxy is a private loopback, plus HTTP and HTTPS through the
	// gateway's egress proxy, bridged to ProxyPort on that loopback.
	Proxy = "proxy"
)

// ProxyPort is where, inside a session's network namespace, the bridge to
// the egress proxy listens (on 127.0.0.1). The namespace is the session's
// own, so a fixed port collides with nobody; 3128 is the port HTTP proxies
// are known by.
const ProxyPort = 3128

// DisableEnv, set to "off", makes Available report namespaces unavailable
// whatever the kernel offers: so that tests, and operators checking a
// configuration, can see how Boris behaves on a host without them. It can
// only lower what is enforced.
const DisableEnv = "BORIS_SANDBOX_NAMESPACES"

// ErrUnavailable is wrapped by Available and Probe when the namespaces
// cannot be made here.
var ErrUnavailable = errors.New("namespaces are not available")

// ProxyEnv returns the variables that send a command's HTTP and HTTPS
// through a proxy at addr (host:port), in the spellings tools read
// (curl, git, pip and apt read the lowercase ones, Go and npm either),
// and keep loopback direct: a session's own servers are not behind it.
func ProxyEnv(addr string) []string {
	url := "http://" + addr
	noProxy := "localhost,127.0.0.1,::1"
	return []string{
		"HTTP_PROXY=" + url, "HTTPS_PROXY=" + url, "http_proxy=" + url, "https_proxy=" + url,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
	}
}

// proxyVars are the names ProxyEnv sets, plus ALL_PROXY, which would send
// other traffic elsewhere.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"}

// WithProxyEnv returns env with the proxy variables replaced by
// ProxyEnv(addr).
func WithProxyEnv(env []string, addr string) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		keep := true
		for _, name := range proxyVars {
			if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, ProxyEnv(addr)...)
}
