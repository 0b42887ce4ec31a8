package egress

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// lookupNames maps a host name to the form DNS is asked for, as a
// resolver would (UTS #46 processing for lookup, nontransitional, as
// browsers and curl do): Unicode labels become their xn-- (A-label)
// spelling and letters lower case. Underscores stay allowed: names such
// as _acme-challenge.example.org exist in DNS.
var lookupNames = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

// Normalize returns host as the proxy compares and resolves it, so that
// every spelling of one destination meets the same rule and the same
// --egress-resolve pin: an IP address in its canonical text (an
// IPv4-mapped IPv6 address as the IPv4 address it maps); a name in lower
// case, without the trailing dot of a fully qualified name, Unicode
// labels in their xn-- spelling. A name IDNA rejects is an error: the
// proxy refuses what it cannot name.
func Normalize(host string) (string, error) {
	h := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return "", fmt.Errorf("host %q: an address with a zone names a link of this host, never a destination", host)
		}
		return a.Unmap().String(), nil
	}
	if h == "" || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("host %q: want a host name or an IP address", host)
	}
	n, err := lookupNames.ToASCII(h)
	if err != nil {
		return "", fmt.Errorf("host %q is not a valid name (IDNA): %w", host, err)
	}
	return n, nil
}
