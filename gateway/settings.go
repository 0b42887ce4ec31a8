package gateway

import (
	"fmt"
	"time"

	"github.com/mjkoo/boris/internal/flagenv"
)

// Settings are what the gateway's Config and a Handler's Options share:
// each is a flag and a BORIS_GATEWAY_* variable of boris-gateway, and
// what a Handler reads; its default, in its envDefault tag, is the one
// both get (see withDefaults). A zero or negative value in Options
// selects the default.
type Settings struct {
	// PublicURL is the canonical external URL of the MCP endpoint: its origin
	// is allowed (see checkOrigin), /healthz and the index name it.
	PublicURL string `flag:"public-url" env:"BORIS_GATEWAY_PUBLIC_URL" help:"canonical external URL of the MCP endpoint, e.g. https://mcp.example.com/mcp"`

	// AllowedOrigins are the browser origins allowed to call the gateway
	// ("*" allows any); see checkOrigin.
	AllowedOrigins []string `flag:"allowed-origins" env:"BORIS_GATEWAY_ALLOWED_ORIGINS" help:"browser origins allowed to call the gateway (repeatable or comma-separated; * allows any)"`

	// IdleTimeout ends a session without requests this long.
	IdleTimeout time.Duration `flag:"session-idle-timeout" env:"BORIS_GATEWAY_SESSION_IDLE_TIMEOUT" envDefault:"30m" help:"end a session after this long without requests"`

	// MaxLifetime ends a session this long after it began.
	MaxLifetime time.Duration `flag:"session-max-lifetime" env:"BORIS_GATEWAY_SESSION_MAX_LIFETIME" envDefault:"12h" help:"end a session this long after it started, whatever its activity"`

	// MaxSessions bounds the open sessions, principals' cores included.
	MaxSessions int `flag:"max-sessions" env:"BORIS_GATEWAY_MAX_SESSIONS" envDefault:"64" help:"sessions (cores) open at once; more get 503"`

	// WarmCores, if positive, keeps up to that many cores started ahead
	// of the sessions that will take them: a principal's next core is
	// started as soon as one is taken (see launch.WarmPool).
	WarmCores int `flag:"warm-cores" env:"BORIS_GATEWAY_WARM_CORES" envDefault:"0" help:"cores kept started ahead of the sessions that will take them (a principal's next core starts as soon as one is taken), so a session create pays no core start-up; each holds a core's memory while it waits (stopped after 5m unused)"`

	// MaxPerSubject bounds the sessions one subject holds at once; 0 means
	// a quarter of MaxSessions, at least 1.
	MaxPerSubject int `flag:"max-sessions-per-subject" env:"BORIS_GATEWAY_MAX_SESSIONS_PER_SUBJECT" envDefault:"0" help:"sessions one subject may hold at once; more get 429 (0 = a quarter of --max-sessions, at least 1)"`

	// MaxBody is the largest request body.
	MaxBody flagenv.Size `flag:"max-body" env:"BORIS_GATEWAY_MAX_BODY" envDefault:"4MB" help:"largest request body (413 beyond)"`

	// ReadTimeout bounds how long a client takes to send a request once its
	// headers are in (the server's ReadHeaderTimeout bounds those): the
	// body is read within it, and a request refused before its body was
	// read (401, 404, /healthz, ...) is answered at once with
	// Connection: close, its connection closed once the rest of the body
	// has come or ReadTimeout has passed.
	ReadTimeout time.Duration `flag:"read-timeout" env:"BORIS_GATEWAY_READ_TIMEOUT" envDefault:"30s" help:"how long a client may take to send a request body; a request refused before its body is read has its connection closed within this time"`

	// WriteTimeout bounds each piece of a response: a client that reads
	// nothing of it for this long is cut off, and what the gateway held for
	// it is released. A slow client that keeps reading is not.
	WriteTimeout time.Duration `flag:"write-timeout" env:"BORIS_GATEWAY_WRITE_TIMEOUT" envDefault:"30s" help:"how long a client may leave a response unread before it is cut off and what the gateway holds for it is released"`

	// ReplayBuffer bounds what each SSE stream of a session keeps so a
	// client that lost its connection can resume it with Last-Event-ID:
	// its events' bytes (and 64 bytes each), its newest event always kept.
	// What is kept counts in MaxBuffered and MaxBufferedTotal, which drop
	// kept events already sent, oldest first, before refusing a new
	// message.
	ReplayBuffer flagenv.Size `flag:"replay-buffer" env:"BORIS_GATEWAY_REPLAY_BUFFER" envDefault:"1MB" help:"bytes of events each SSE stream keeps so a client that lost its connection resumes it with Last-Event-ID (its newest event always; counted in the memory held for the session)"`

	// ReplayWindow is how long a stream's events are kept for resumption.
	ReplayWindow time.Duration `flag:"replay-window" env:"BORIS_GATEWAY_REPLAY_WINDOW" envDefault:"5m" help:"how long an SSE stream keeps an event for resumption with Last-Event-ID"`

	// NodeID, if set, names this gateway among several behind one load
	// balancer (docs/reference/distribution.md#several-hosts): session ids are NodeID + "." + 128 random bits,
	// so a proxy routes a session's requests to its node by matching the
	// id's prefix, and every response carries X-Boris-Node.
	NodeID string `flag:"node-id" env:"BORIS_GATEWAY_NODE_ID" help:"this gateway's name among several behind one load balancer (a-z, 0-9, -; up to 32): session ids start with it and a dot, and every response carries X-Boris-Node"`

	// The settings below are no flags: bounds a Handler keeps, whose
	// defaults suit every deployment.

	// KeepAlive is the interval of SSE keep-alive comments.
	KeepAlive time.Duration `envDefault:"15s"`
	// MaxMessage is the largest message a core may send: a larger reply is
	// dropped and its request answered with a JSON-RPC error; the session
	// goes on. Its default fits a view of the largest image the core
	// returns, base64-encoded.
	MaxMessage flagenv.Size `envDefault:"64MB"`
	// MaxBuffered bounds the bytes of one session's core messages the
	// gateway holds (read from the core, not yet written to the client):
	// beyond it, replies are dropped and their requests answered with a
	// JSON-RPC error until the client reads or gives up.
	MaxBuffered flagenv.Size `envDefault:"64MB"`
	// MaxBufferedTotal is the same bound for all sessions together.
	MaxBufferedTotal flagenv.Size `envDefault:"512MB"`
	// MaxInFlight bounds a session's requests in flight, cancelled ones the
	// core has not finished included; more get 429.
	MaxInFlight int `envDefault:"32"`
}

// withDefaults returns s with each setting that is zero or negative set to
// its default, from the tags: the defaults the flags have.
func (s Settings) withDefaults() Settings {
	if err := flagenv.Defaults(&s); err != nil {
		panic(fmt.Sprintf("the defaults of gateway.Settings do not parse: %v", err))
	}
	if s.MaxPerSubject <= 0 {
		s.MaxPerSubject = max(1, s.MaxSessions/4)
	}
	return s
}
