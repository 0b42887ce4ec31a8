package egress

import (
	"fmt"
	"net"
	"net/netip"
	"sync"
)

// The proxy leads out only: it connects to public unicast addresses, and
// to others only by the operator's intent (a --egress-resolve pin, or an
// --egress-internal network). What is not public is what the IANA IPv4
// and IPv6 Special-Purpose Address Registries mark not globally
// reachable, multicast, and, for IPv6, everything outside global unicast
// (2000::/3); forms that carry an IPv4 address inside an IPv6 one are
// judged by the IPv4 address they lead to, and every address of this
// host's own interfaces is refused whatever its range.

// special is one range of the registries, with what the refusal says.
type special struct {
	prefix netip.Prefix
	what   string
}

// specials are the ranges refused. More specific ranges come before the
// ones holding them, so that a refusal names the narrowest.
var specials = sync.OnceValue(func() []special {
	var out []special
	for _, s := range []struct{ cidr, what string }{
		// IPv4 (RFC 6890 and the registry's later entries).
		{"0.0.0.0/8", "\"this network\" (RFC 791), which Linux connects to this host"},
		{"10.0.0.0/8", "private (RFC 1918)"},
		{"100.64.0.0/10", "shared address space, carrier-grade NAT (RFC 6598)"},
		{"127.0.0.0/8", "loopback (RFC 1122)"},
		{"169.254.0.0/16", "link-local, where cloud metadata services answer (RFC 3927)"},
		{"172.16.0.0/12", "private (RFC 1918)"},
		{"192.0.0.0/24", "IETF protocol assignments (RFC 6890)"},
		{"192.0.2.0/24", "documentation, TEST-NET-1 (RFC 5737)"},
		{"192.88.99.0/24", "the retired 6to4 relay anycast (RFC 7526)"},
		{"192.168.0.0/16", "private (RFC 1918)"},
		{"198.18.0.0/15", "benchmarking (RFC 2544)"},
		{"198.51.100.0/24", "documentation, TEST-NET-2 (RFC 5737)"},
		{"203.0.113.0/24", "documentation, TEST-NET-3 (RFC 5737)"},
		{"224.0.0.0/4", "multicast (RFC 5771)"},
		{"255.255.255.255/32", "limited broadcast (RFC 919)"},
		{"240.0.0.0/4", "reserved (RFC 1112)"},
		// IPv6 (RFC 6890, RFC 4291 and the registry's later entries).
		{"::/128", "unspecified (RFC 4291), which Linux connects to this host"},
		{"::1/128", "loopback (RFC 4291)"},
		{"::/96", "IPv4-compatible, deprecated (RFC 4291)"},
		{"64:ff9b:1::/48", "local-use IPv4/IPv6 translation (RFC 8215)"},
		{"100::/64", "discard-only (RFC 6666)"},
		{"2001::/32", "Teredo (RFC 4380), whose addresses carry IPv4 addresses inside"},
		{"2001:2::/48", "benchmarking (RFC 5180)"},
		{"2001:db8::/32", "documentation (RFC 3849)"},
		{"2001::/23", "IETF protocol assignments (RFC 2928)"},
		{"2002::/16", "6to4 (RFC 3056), whose addresses carry IPv4 addresses inside"},
		{"3fff::/20", "documentation (RFC 9637)"},
		{"5f00::/16", "segment routing (SRv6) SIDs (RFC 9602)"},
		{"fc00::/7", "unique local (RFC 4193)"},
		{"fe80::/10", "link-local (RFC 4291)"},
		{"fec0::/10", "site-local, deprecated (RFC 3879)"},
		{"ff00::/8", "multicast (RFC 4291)"},
	} {
		out = append(out, special{netip.MustParsePrefix(s.cidr), s.what})
	}
	return out
})

// globalUnicast is IPv6's global unicast space (RFC 4291 §2.4); outside it
// nothing is a destination on the Internet.
var globalUnicast = netip.MustParsePrefix("2000::/3")

// nat64 is the well-known IPv4/IPv6 translation prefix (RFC 6052): its
// addresses lead to the IPv4 address in their last 32 bits, through a
// NAT64 gateway (an IPv6-only network reaching IPv4 through DNS64).
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// NotPublic says why a (unmapped) is not a public unicast address, "" if
// it is one. An IPv4-mapped address is the IPv4 address it maps; a NAT64
// address is judged by the IPv4 address it leads to.
func NotPublic(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if nat64.Contains(a) {
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[12:]))
		if why := NotPublic(v4); why != "" {
			return fmt.Sprintf("NAT64 (RFC 6052) of %s, which is %s", v4, why)
		}
		return ""
	}
	for _, s := range specials() {
		if s.prefix.Contains(a) {
			return s.what
		}
	}
	if a.Is6() && !globalUnicast.Contains(a) {
		return "outside IPv6 global unicast, 2000::/3 (RFC 4291)"
	}
	return ""
}

// hostAddrs returns the addresses of this host's interfaces (in the
// gateway's network namespace), read afresh: an address added since the
// gateway started counts at once.
func hostAddrs() ([]netip.Addr, error) {
	ifas, err := net.InterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("read this host's addresses: %w", err)
	}
	out := make([]netip.Addr, 0, len(ifas))
	for _, ifa := range ifas {
		if n, ok := ifa.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, a.Unmap())
			}
		}
	}
	return out, nil
}
