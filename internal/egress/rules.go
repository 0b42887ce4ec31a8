package egress

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
)

// DefaultAllow is boris-gateway's --egress-allow when the operator gives
// none: what fetching dependencies and code needs in the common
// ecosystems, over HTTP(S) on ports 80 and 443 only.
var DefaultAllow = []string{
	// Go: the module proxy, the checksum database, and go get's first
	// look at a module's home (vanity imports answer there).
	"proxy.golang.org", "sum.golang.org", "storage.googleapis.com", "go.dev", "golang.org",
	// npm and Yarn registries.
	"registry.npmjs.org", "registry.yarnpkg.com",
	// PyPI: the index and the files it links to.
	"pypi.org", "files.pythonhosted.org",
	// Debian packages and security updates (apt-get through http_proxy).
	"deb.debian.org", "security.debian.org",
	// GitHub: clones, the API, release downloads and raw files.
	"github.com", "*.github.com", "codeload.github.com", "objects.githubusercontent.com",
	"raw.githubusercontent.com", "release-assets.githubusercontent.com",
}

// Rule is one --egress-allow pattern: a host name (exact, or "*.domain"
// for every name under domain, not domain itself) or an IP address, and a
// port ("*" for any; none for 80 and 443).
type Rule struct {
	Pattern string // as written, for messages
	host    string // as Normalize writes it; "*.x" keeps its "*."
	ports   []int  // nil: any port
}

// defaultPorts are the ports a rule without one allows: HTTP's and HTTPS's.
var defaultPorts = []int{80, 443}

// ParseRule parses one --egress-allow pattern: HOST, *.DOMAIN, HOST:PORT
// or HOST:* (an IPv6 address in brackets).
func ParseRule(s string) (Rule, error) {
	r := Rule{Pattern: s}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	wild := strings.HasPrefix(host, "*.")
	name, err := Normalize(strings.TrimPrefix(host, "*."))
	switch {
	case err != nil || strings.Contains(name, "*") || wild && name == "":
		return r, fmt.Errorf("invalid --egress-allow pattern %q: want a host name, *.domain or an IP address, then optionally :port or :*", s)
	case port == "":
		r.ports = defaultPorts
	case port == "*":
	default:
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("invalid --egress-allow pattern %q: want a port from 1 to 65535, or *", s)
		}
		r.ports = []int{n}
	}
	r.host = name
	if wild {
		r.host = "*." + name
	}
	return r, nil
}

// ParseRules parses every pattern.
func ParseRules(patterns []string) ([]Rule, error) {
	var out []Rule
	for _, p := range patterns {
		r, err := ParseRule(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Matches reports whether r allows host (as Normalize writes it) on port.
func (r Rule) Matches(host string, port int) bool {
	if r.ports != nil && !slices.Contains(r.ports, port) {
		return false
	}
	if domain, ok := strings.CutPrefix(r.host, "*."); ok {
		return strings.HasSuffix(host, "."+domain)
	}
	return host == r.host
}

// match returns the first rule allowing host (normalised) on port.
func match(rules []Rule, host string, port int) (Rule, bool) {
	for _, r := range rules {
		if r.Matches(host, port) {
			return r, true
		}
	}
	return Rule{}, false
}
