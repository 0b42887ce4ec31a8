package gateway

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mjkoo/boris/gateway/launch"
	"github.com/mjkoo/boris/internal/flagenv"
)

// Config is the gateway's configuration (docs/reference/gateway.md#configuration). Every field is a flag
// and a BORIS_GATEWAY_* environment variable; the flag wins.
type Config struct {
	Listen string `flag:"listen" env:"BORIS_GATEWAY_LISTEN" envDefault:"127.0.0.1:8080" help:"address to listen on (host:port)"`
	Core   string `flag:"core" env:"BORIS_GATEWAY_CORE" helpDefault:"next to boris-gateway, then $PATH" help:"path of the boris binary"`
	// Settings are the flags a Handler reads as they are (see Options).
	Settings
	Cgroups             string        `flag:"cgroups" env:"BORIS_GATEWAY_CGROUPS" envDefault:"auto" help:"one cgroup v2 per session, killed whole when it ends: auto (when the gateway can create them), required or off"`
	CgroupRoot          string        `flag:"cgroup-root" env:"BORIS_GATEWAY_CGROUP_ROOT" helpDefault:"the gateway's own cgroup" help:"cgroup v2 directory to create session cgroups in"`
	SessionPidsMax      int64         `flag:"session-pids-max" env:"BORIS_GATEWAY_SESSION_PIDS_MAX" envDefault:"0" help:"most processes one session may run (cgroup pids controller; 0 = no limit)"`
	SessionMemoryMax    flagenv.Size  `flag:"session-memory-max" env:"BORIS_GATEWAY_SESSION_MEMORY_MAX" help:"most memory one session may use, e.g. 4GB (cgroup memory controller; unset = no limit)"`
	SessionCPUWeight    int           `flag:"session-cpu-weight" env:"BORIS_GATEWAY_SESSION_CPU_WEIGHT" envDefault:"0" help:"CPU weight of each session, 1-10000 (cgroup cpu controller; 0 = unset)"`
	SandboxNet          string        `flag:"sandbox-net" env:"BORIS_GATEWAY_SANDBOX_NET" helpDefault:"proxy; none with --egress-allow none" help:"network of every core's commands, each session in PID, IPC and network namespaces of its own: none (a private loopback), proxy (plus HTTP and HTTPS through the gateway's egress proxy to --egress-allow destinations) or host (the host's network, shared by every session)"`
	EgressAllow         []string      `flag:"egress-allow" env:"BORIS_GATEWAY_EGRESS_ALLOW" helpDefault:"Go, npm, PyPI, Debian and GitHub hosts (see the README)" help:"destination the egress proxy lets through: host, *.domain (its subdomains) or IP address, with :port or :* (default ports 80 and 443); none for no destination (repeatable or comma-separated)"`
	EgressResolve       []string      `flag:"egress-resolve" env:"BORIS_GATEWAY_EGRESS_RESOLVE" help:"NAME=IP the egress proxy connects to for NAME (in any spelling) instead of asking DNS, whatever IP is: the only way to the gateway host's own addresses (an internal mirror; tests) (repeatable or comma-separated)"`
	EgressInternal      []string      `flag:"egress-internal" env:"BORIS_GATEWAY_EGRESS_INTERNAL" help:"non-public network (CIDR, e.g. 10.20.0.0/16) the egress proxy may connect to when an allowed destination leads there; without it only public addresses are (never the gateway host's own: pin those with --egress-resolve) (repeatable or comma-separated)"`
	EgressDNS           string        `flag:"egress-dns" env:"BORIS_GATEWAY_EGRESS_DNS" helpDefault:"the system's resolver" help:"DNS server (host:port) the egress proxy resolves allowed names with"`
	EgressIdleTimeout   time.Duration `flag:"egress-idle-timeout" env:"BORIS_GATEWAY_EGRESS_IDLE_TIMEOUT" envDefault:"5m" help:"close a tunnel through the egress proxy when no byte has moved either way for this long, and a kept-alive connection that sends no request or gets nothing from its destination for this long"`
	EgressPerSession    int           `flag:"egress-max-per-session" env:"BORIS_GATEWAY_EGRESS_MAX_PER_SESSION" envDefault:"128" help:"connections (tunnels included) one session may hold open through the egress proxy; more get 429"`
	EgressPerPrincipal  int           `flag:"egress-max-per-principal" env:"BORIS_GATEWAY_EGRESS_MAX_PER_PRINCIPAL" envDefault:"512" help:"connections all sessions of one principal may hold open through the egress proxy; more get 429"`
	EgressFDReserve     int           `flag:"egress-fd-reserve" env:"BORIS_GATEWAY_EGRESS_FD_RESERVE" envDefault:"256" help:"file descriptors the gateway keeps for new sessions: a connection through the egress proxy that would leave fewer free gets 503"`
	AllowReadableSecret bool          `flag:"allow-readable-secrets" env:"BORIS_GATEWAY_ALLOW_READABLE_SECRETS" envDefault:"false" help:"start even when a token, secret or key file lies where cores' commands may read it"`
	SSEPath             string        `flag:"sse-path" env:"BORIS_GATEWAY_SSE_PATH" envDefault:"/sse" help:"path of the 2024-11-05 HTTP+SSE transport, for clients without Streamable HTTP: GET opens a session and its event stream, POST ?sessionId= sends it messages; off serves none"`
	Auth                string        `flag:"auth" env:"BORIS_GATEWAY_AUTH" helpDefault:"authentication on (a token is generated when none is configured)" help:"set to none to run without authentication (loopback addresses only)"`
	Tokens              []string      `flag:"token" env:"BORIS_GATEWAY_TOKENS" split:"env" help:"static bearer token, NAME=TOKEN names its subject (repeatable, each whole; the variable is comma-separated; at least 16 characters)"`
	TokenFile           string        `flag:"token-file" env:"BORIS_GATEWAY_TOKEN_FILE" help:"file of tokens, one NAME=TOKEN or TOKEN per line, # comments; re-read on SIGHUP"`
	GenerateToken       bool          `flag:"generate-token" env:"BORIS_GATEWAY_GENERATE_TOKEN" envDefault:"false" help:"generate a random token at start-up and print it once on stderr"`
	JWTSecretFile       string        `flag:"jwt-secret-file" env:"BORIS_GATEWAY_JWT_SECRET_FILE" help:"file holding an HMAC secret (at least 32 bytes) for HS256/384/512 JWTs"`
	JWTSecret           string        `env:"BORIS_GATEWAY_JWT_SECRET"`
	JWTPublicKeys       []string      `flag:"jwt-public-key" env:"BORIS_GATEWAY_JWT_PUBLIC_KEYS" split:"env" help:"PEM file of an RSA, ECDSA or Ed25519 public key for JWTs (repeatable, each whole; the variable is comma-separated)"`
	JWKSURL             string        `flag:"jwks-url" env:"BORIS_GATEWAY_JWKS_URL" help:"JSON Web Key Set URL of your identity provider (cached; refreshed on an unknown kid)"`
	JWTIssuer           string        `flag:"jwt-issuer" env:"BORIS_GATEWAY_JWT_ISSUER" help:"required iss claim of JWTs"`
	JWTAudience         string        `flag:"jwt-audience" env:"BORIS_GATEWAY_JWT_AUDIENCE" helpDefault:"the --public-url" help:"required aud claim of JWTs"`
	JWTLeeway           time.Duration `flag:"jwt-leeway" env:"BORIS_GATEWAY_JWT_LEEWAY" envDefault:"30s" help:"clock skew allowed when checking exp, nbf and iat"`
	AuthorizationServer []string      `flag:"authorization-server" env:"BORIS_GATEWAY_AUTHORIZATION_SERVERS" help:"OAuth authorization server advertised in RFC 9728 metadata (repeatable; needs --public-url)"`
	WorkdirTemplate     string        `flag:"workdir-template" env:"BORIS_GATEWAY_WORKDIR_TEMPLATE" help:"per-subject core working directory, e.g. /srv/work/{sub} (created 0700)"`
	TasksDB             string        `flag:"tasks-db" env:"BORIS_GATEWAY_TASKS_DB" helpDefault:"each principal its own" help:"one task board shared by every core: a team's board; a SQLite file, or postgres://USER@HOST/DB?sslmode=... shared by every gateway (several hosts), its password never in the URL"`
	TasksDBPasswordFile string        `flag:"tasks-db-password-file" env:"BORIS_GATEWAY_TASKS_DB_PASSWORD_FILE" help:"file whose first line is the PostgreSQL role's password for a postgres:// --tasks-db; given to every core and read by the dashboard (else passfile=, PGPASSFILE, ~/.pgpass or PGPASSWORD)"`
	TasksDBPerPrincipal bool          `flag:"tasks-db-per-principal" env:"BORIS_GATEWAY_TASKS_DB_PER_PRINCIPAL" envDefault:"false" help:"with a postgres:// --tasks-db: each principal its own board in that database, as a role and schema of its own that the gateway provisions on first use as --tasks-db's role (which needs CREATEROLE and CREATE on the database); a principal's cores and its dashboard view connect as its role only"`
	StateDir            string        `flag:"state-dir" env:"BORIS_GATEWAY_STATE_DIR" helpDefault:"$STATE_DIRECTORY, else ~/.boris/gateway" help:"directory of the gateway's state: principals' task boards when there is no --workdir-template (created 0700)"`
	DashboardOperators  []string      `flag:"dashboard-operator" env:"BORIS_GATEWAY_DASHBOARD_OPERATORS" help:"subject whose token sees every principal on /dashboard and may read /metrics: NAME of a static token, jwt:SUB of a JWT (repeatable or comma-separated)"`
	MetricsAuth         string        `flag:"metrics-auth" env:"BORIS_GATEWAY_METRICS_AUTH" envDefault:"operator" help:"who may read /metrics: operator (a --dashboard-operator's bearer token, or the --metrics-token-file token) or none (anyone who can reach the gateway)"`
	MetricsTokenFile    string        `flag:"metrics-token-file" env:"BORIS_GATEWAY_METRICS_TOKEN_FILE" help:"file holding a bearer token that may read /metrics and nothing else (for a Prometheus scraper)"`
	TrustedProxies      []string      `flag:"trusted-proxies" env:"BORIS_GATEWAY_TRUSTED_PROXIES" help:"CIDRs of reverse proxies whose X-Forwarded-For is believed for logs (repeatable or comma-separated)"`
	ShutdownTimeout     time.Duration `flag:"shutdown-timeout" env:"BORIS_GATEWAY_SHUTDOWN_TIMEOUT" envDefault:"10s" help:"on SIGTERM, how long in-flight requests may take to finish"`
	DrainLinger         time.Duration `flag:"drain-linger" env:"BORIS_GATEWAY_DRAIN_LINGER" envDefault:"-1s" helpDefault:"10s with --node-id, else 0s" help:"on SIGTERM, keep listening this long after the sessions ended, answering them 404 (so clients re-initialise on another node) and new sessions 503"`
	LogLevel            string        `flag:"log-level" env:"BORIS_GATEWAY_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error (logs go to stderr)"`
	LogFormat           string        `flag:"log-format" env:"BORIS_GATEWAY_LOG_FORMAT" envDefault:"text" help:"text or json"`
	Version             bool          `flag:"version" help:"print the version and exit"`

	// CoreArgs are the arguments after "--", passed to every core.
	CoreArgs []string

	tokenArgs bool   // a --token was given on the command line
	egressDir string // where the egress proxy's doors are, once started
}

var command = flagenv.Command{
	Name:  "boris-gateway",
	Usage: "[flags] [-- boris flags...]",
	Synopsis: "boris-gateway serves MCP over Streamable HTTP at /mcp, spawning one boris core per session.\n" +
		"Arguments after -- are passed to every core (e.g. -- --workdir /srv/project).",
}

// ParseConfig reads the configuration from args and environ; help goes to out.
func ParseConfig(args, environ []string, out io.Writer) (*Config, error) {
	var cfg Config
	rest, err := flagenv.Parse(command, &cfg, args, environ, out)
	if err != nil {
		return nil, suggestCoreFlags(err)
	}
	cfg.CoreArgs = rest
	cfg.tokenArgs = launch.HasFlag(args, "token")
	return &cfg, cfg.validate()
}

// suggestCoreFlags adds to an unknown flag's error where the core's flags
// go: boris's own flags (--workdir, --allow-dir...) are given to the
// gateway after "--", which passes them to every core.
func suggestCoreFlags(err error) error {
	var ue *flagenv.UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "unknown flag --") {
		return err
	}
	flag, _, _ := strings.Cut(strings.TrimPrefix(ue.Msg, "unknown flag "), " ")
	return usage("%s; if it is a flag of boris (the core), give it after --: boris-gateway [gateway flags] -- %s ...", ue.Msg, flag)
}

func (c *Config) validate() error {
	switch {
	case c.MaxSessions < 1:
		return usage("invalid value %d for --max-sessions: want 1 or more", c.MaxSessions)
	case c.WarmCores < 0 || c.WarmCores > c.MaxSessions:
		return usage("invalid value %d for --warm-cores: want 0 to --max-sessions (%d)", c.WarmCores, c.MaxSessions)
	case c.MaxPerSubject < 0:
		return usage("invalid value %d for --max-sessions-per-subject: want 1 or more, or 0 for a quarter of --max-sessions", c.MaxPerSubject)
	case !slices.Contains([]string{"auto", "required", "off"}, c.Cgroups):
		return usage("invalid value %q for --cgroups: want auto, required or off", c.Cgroups)
	case c.SessionPidsMax < 0:
		return usage("invalid value %d for --session-pids-max: want 0 (no limit) or more", c.SessionPidsMax)
	case c.SessionMemoryMax < 0:
		return usage("invalid value %d for --session-memory-max: want 0 (no limit) or a size such as 4GB", c.SessionMemoryMax)
	case c.SessionCPUWeight < 0 || c.SessionCPUWeight > 10000:
		return usage("invalid value %d for --session-cpu-weight: want 1 to 10000, or 0 for unset", c.SessionCPUWeight)
	case c.IdleTimeout <= 0:
		return usage("invalid value %s for --session-idle-timeout: want a positive duration such as 30m", c.IdleTimeout)
	case c.MaxLifetime <= 0:
		return usage("invalid value %s for --session-max-lifetime: want a positive duration such as 12h", c.MaxLifetime)
	case c.ReadTimeout <= 0:
		return usage("invalid value %s for --read-timeout: want a positive duration such as 30s", c.ReadTimeout)
	case c.WriteTimeout <= 0:
		return usage("invalid value %s for --write-timeout: want a positive duration such as 30s", c.WriteTimeout)
	case c.ReplayBuffer <= 0:
		return usage("invalid value %d for --replay-buffer: want a positive size such as 1MB", c.ReplayBuffer)
	case c.ReplayWindow <= 0:
		return usage("invalid value %s for --replay-window: want a positive duration such as 5m", c.ReplayWindow)
	case c.Auth != "" && c.Auth != "none":
		return usage("invalid value %q for --auth: want none (or leave unset)", c.Auth)
	case c.MetricsAuth != "operator" && c.MetricsAuth != "none":
		return usage("invalid value %q for --metrics-auth: want operator or none", c.MetricsAuth)
	case !slices.Contains([]string{"text", "json"}, c.LogFormat):
		return usage("invalid value %q for --log-format: want text or json", c.LogFormat)
	}
	if c.NodeID != "" && !nodeIDPattern.MatchString(c.NodeID) {
		return usage("invalid value %q for --node-id: want 1 to 32 of a-z, 0-9 and -, starting with a letter or digit", c.NodeID)
	}
	if c.DrainLinger < 0 && c.DrainLinger != autoLinger {
		return usage("invalid value %s for --drain-linger: want 0 or a positive duration such as 10s", c.DrainLinger)
	}
	if why := validSSEPath(c.SSEPath); c.SSEPath != "off" && why != "" {
		return usage("invalid value %q for --sse-path: %s", c.SSEPath, why)
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return usage("invalid value %q for --listen: want host:port", c.Listen)
	}
	if len(c.AuthorizationServer) > 0 && c.PublicURL == "" {
		return usage("--authorization-server needs --public-url: the metadata names the resource by its public URL")
	}
	if c.WorkdirTemplate != "" && !strings.Contains(c.WorkdirTemplate, "{sub}") {
		return usage("invalid value %q for --workdir-template: want a path containing {sub}", c.WorkdirTemplate)
	}
	if c.JWTLeeway < 0 || c.JWTLeeway > 5*time.Minute {
		return usage("invalid value %s for --jwt-leeway: want 0 to 5m", c.JWTLeeway)
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usage("invalid value %q for --public-url: want an absolute http(s) URL", c.PublicURL)
		}
	}
	if _, err := c.level(); err != nil {
		return err
	}
	if _, err := c.proxies(); err != nil {
		return err
	}
	return c.validateNet()
}

// nodeIDPattern is what --node-id allows: a proxy matches it in a session
// id (up to the first dot) without escaping anything.
var nodeIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// autoLinger is --drain-linger's default: 10s for a node of several
// (--node-id), else none.
const autoLinger = -time.Second

// drainLinger is the effective --drain-linger.
func (c *Config) drainLinger() time.Duration {
	switch {
	case c.DrainLinger != autoLinger:
		return c.DrainLinger
	case c.NodeID != "":
		return 10 * time.Second
	}
	return 0
}

// ssePath is the effective --sse-path: "" when it is off.
func (c *Config) ssePath() string {
	if c.SSEPath == "off" {
		return ""
	}
	return c.SSEPath
}

// proxies parses --trusted-proxies; a bare address means just that host.
func (c *Config) proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.TrustedProxies {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			addr, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, usage("invalid value %q for --trusted-proxies: want CIDRs such as 10.0.0.0/8 or 127.0.0.1/32", s)
			}
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// loopback reports whether the listen address is a loopback one.
func (c *Config) loopback() bool {
	host, _, _ := net.SplitHostPort(c.Listen)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return l, usage("invalid value %q for --log-level: want debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

func (c *Config) logger(w io.Writer) *slog.Logger {
	level, _ := c.level()
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func usage(format string, args ...any) error {
	return &flagenv.UsageError{Msg: fmt.Sprintf(format, args...)}
}

// findCore locates the boris binary: the configured path, else next to
// this executable, else on $PATH.
func findCore(configured string) (string, error) {
	if configured != "" {
		if _, err := exec.LookPath(configured); err != nil {
			return "", usage("invalid value %q for --core: %v", configured, err)
		}
		return configured, nil
	}
	if self, err := os.Executable(); err == nil {
		next := filepath.Join(filepath.Dir(self), "boris")
		if fi, err := os.Stat(next); err == nil && !fi.IsDir() {
			return next, nil
		}
	}
	path, err := exec.LookPath("boris")
	if err != nil {
		return "", usage("cannot find the boris core next to boris-gateway or on $PATH; set --core")
	}
	return path, nil
}
