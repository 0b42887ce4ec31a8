package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/internal/egress"
	"github.com/mjkoo/boris/internal/netns"
)

// Network confinement of the cores' commands (SPEC §6, "Tenants neither
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
// arguments and, with proxy, starts the egress proxy on a Unix socket in
// a private directory and adds --egress-socket. The returned function
// stops the proxy and removes the socket.
func (c *Config) startEgress(ctx context.Context, log *slog.Logger) (func(), error) {
	mode := c.netMode()
	c.CoreArgs = append(c.CoreArgs, "--sandbox-net", mode)
	if mode != netns.Proxy {
		return func() {}, nil
	}
	rules, _ := egress.ParseRules(c.egressAllow()) // validated
	pins, _ := c.egressResolve()
	internal, _ := c.egressInternal()
	// The directory is the gateway's own (0700), outside every tree a
	// principal may write; cores run as the gateway's user.
	dir, err := os.MkdirTemp("", "boris-egress-")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	sock := filepath.Join(dir, "proxy.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := egress.NewProxy(rules)
	p.Resolve, p.Internal, p.Logger = pins, internal, log.With("component", "egress")
	if c.EgressDNS != "" {
		p.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, c.EgressDNS)
		}}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.Serve(ctx, ln); err != nil && !errors.Is(err, net.ErrClosed) {
			log.Error("egress proxy stopped", "err", err)
		}
	}()
	c.CoreArgs = append(c.CoreArgs, "--egress-socket", sock)
	log.Info("egress proxy", "socket", sock, "allow", strings.Join(c.egressAllow(), ","))
	return func() {
		cancel()
		<-done
		os.RemoveAll(dir)
	}, nil
}
