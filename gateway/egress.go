package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/internal/egress"
	"github.com/mjkoo/boris/internal/netns"
)

// Network confinement of the cores' commands (docs/reference/security.md#network-modes, "Tenants neither
// see nor reach each other"): the gateway decides every core's
// --sandbox-net, and with proxy runs the egress proxy (internal/egress)
// on a Unix socket the cores' commands reach through their bridge.

// netMode is the effective --sandbox-net: the operator's, else proxy when
// the allow list has anything in it, else none. Never host by default.
func (c *Config) netMode() string {
	switch {
	case c.SandboxNet != "":
		return c.SandboxNet
	case len(c.egressAllow()) > 0:
		return netns.Proxy
	}
	return netns.None
}

// egressAllow is the effective --egress-allow: egress.DefaultAllow when
// unset, nothing for "none".
func (c *Config) egressAllow() []string {
	switch {
	case len(c.EgressAllow) == 0:
		return egress.DefaultAllow
	case len(c.EgressAllow) == 1 && c.EgressAllow[0] == "none":
		return nil
	}
	return c.EgressAllow
}

// validateNet checks the network settings.
func (c *Config) validateNet() error {
	switch c.SandboxNet {
	case "", netns.Host, netns.None, netns.Proxy:
	default:
		return usage("invalid value %q for --sandbox-net: want host, none or proxy", c.SandboxNet)
	}
	if launch.HasFlag(c.CoreArgs, "sandbox-net") || launch.HasFlag(c.CoreArgs, "egress-socket") {
		return usage("set the cores' network with the gateway's --sandbox-net (before --), not the core's: the gateway runs the egress proxy it needs")
	}
	if c.SandboxNet == netns.Proxy && len(c.egressAllow()) == 0 {
		return usage("--sandbox-net proxy with --egress-allow none lets nothing out: use --sandbox-net none")
	}
	if _, err := egress.ParseRules(c.egressAllow()); err != nil {
		return usage("%v", err)
	}
	if _, err := c.egressResolve(); err != nil {
		return err
	}
	if _, err := c.egressInternal(); err != nil {
		return err
	}
	if c.EgressIdleTimeout <= 0 || c.EgressPerSession < 1 || c.EgressPerPrincipal < 1 || c.EgressFDReserve < 1 {
		return usage("--egress-idle-timeout, --egress-max-per-session, --egress-max-per-principal and --egress-fd-reserve must be positive")
	}
	if c.EgressDNS != "" {
		if _, _, err := net.SplitHostPort(c.EgressDNS); err != nil {
			return usage("invalid value %q for --egress-dns: want host:port, e.g. 127.0.0.53:53", c.EgressDNS)
		}
	}
	return nil
}

// egressResolve parses --egress-resolve NAME=ADDRESS pins, by the names'
// normal form (egress.Normalize).
func (c *Config) egressResolve() (map[string]netip.Addr, error) {
	out := map[string]netip.Addr{}
	for _, kv := range c.EgressResolve {
		name, addr, ok := strings.Cut(kv, "=")
		a, err := netip.ParseAddr(addr)
		if !ok || name == "" || err != nil {
			return nil, usage("invalid value %q for --egress-resolve: want NAME=IP, e.g. mirror.internal=10.0.0.5", kv)
		}
		// Pinned as the proxy compares names: API.Test, api.test. and
		// api.test are one pin.
		if name, err = egress.Normalize(name); err != nil {
			return nil, usage("invalid value %q for --egress-resolve: %v", kv, err)
		}
		out[name] = a
	}
	return out, nil
}

// egressInternal parses --egress-internal networks.
func (c *Config) egressInternal() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range c.EgressInternal {
		n, err := netip.ParsePrefix(v)
		if err != nil {
			return nil, usage("invalid value %q for --egress-internal: want a network in CIDR notation, e.g. 10.20.0.0/16", v)
		}
		if n.Masked() != n {
			return nil, usage("invalid value %q for --egress-internal: host bits set; did you mean %s?", v, n.Masked())
		}
		out = append(out, n)
	}
	return out, nil
}

// startEgress settles the cores' network: it adds --sandbox-net to their
// arguments and, with proxy, makes the egress proxy, whose doors (one
// Unix socket per core, each core's --egress-socket) are made in a
// private directory. The returned function closes the proxy, and every
// connection through it, and removes the directory.
func (c *Config) startEgress(log *slog.Logger) (*egress.Proxy, func(), error) {
	mode := c.netMode()
	c.CoreArgs = append(c.CoreArgs, "--sandbox-net", mode)
	if mode != netns.Proxy {
		return nil, func() {}, nil
	}
	rules, _ := egress.ParseRules(c.egressAllow()) // validated
	pins, _ := c.egressResolve()
	internal, _ := c.egressInternal()
	// The directory is the gateway's own (0700), outside every tree a
	// principal may write; cores run as the gateway's user.
	dir, err := os.MkdirTemp("", "boris-egress-")
	if err != nil {
		return nil, nil, fmt.Errorf("egress proxy: %w", err)
	}
	c.egressDir = dir
	p := egress.NewProxy(rules)
	p.Resolve, p.Internal, p.Dir, p.Logger = pins, internal, dir, log.With("component", "egress")
	p.Limits = egress.Limits{IdleTimeout: c.EgressIdleTimeout, PerSession: c.EgressPerSession, PerPrincipal: c.EgressPerPrincipal, FDReserve: c.EgressFDReserve}
	if c.EgressDNS != "" {
		p.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, c.EgressDNS)
		}}
	}
	limit, err := egress.RaiseFDLimit()
	if err != nil {
		log.Warn("cannot raise the file descriptor limit", "err", err)
	}
	if limit < uint64(2*c.EgressFDReserve) {
		log.Warn("the file descriptor limit leaves little room beside --egress-fd-reserve: raise it (ulimit -n, LimitNOFILE=)", "limit", limit, "reserve", c.EgressFDReserve)
	}
	log.Info("egress proxy", "dir", dir, "allow", strings.Join(c.egressAllow(), ","), "internal", strings.Join(c.EgressInternal, ","),
		"idle_timeout", c.EgressIdleTimeout, "max_per_session", c.EgressPerSession, "max_per_principal", c.EgressPerPrincipal,
		"fd_limit", limit, "fd_reserve", c.EgressFDReserve)
	return p, func() {
		p.Close()
		os.RemoveAll(dir)
	}, nil
}
