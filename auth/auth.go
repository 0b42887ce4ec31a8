// Package auth provides authentication for boris-gateway: static bearer
// tokens and JWTs (HMAC, PEM public keys or a JWKS URL), the HTTP middleware
// that turns them into an Identity or an RFC 6750 challenge, RFC 9728
// protected-resource metadata, and the mapping from scopes to what a core
// may do. It knows nothing of the gateway's internals.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// Scopes Boris understands (docs/reference/gateway.md#authentication).
const (
	ScopeRead  = "boris:read"  // view and search
	ScopeWrite = "boris:write" // editing tools
	ScopeExec  = "boris:exec"  // bash and background tasks
)

// AllScopes is what a static token grants.
var AllScopes = []string{ScopeRead, ScopeWrite, ScopeExec}

// ErrInvalidToken is wrapped by every verification failure.
var ErrInvalidToken = errors.New("invalid token")

// maxTokenLen refuses absurd tokens before any parsing.
const maxTokenLen = 16 << 10

// Kinds of identity, by the verifier that made it. A subject is unique only
// within its kind: a static token named "alice" and a JWT whose sub is
// "alice" are different principals.
const (
	KindToken = "token" // a static bearer token (StaticTokens)
	KindJWT   = "jwt"   // a signed JWT (JWTVerifier)
)

// Identity is an authenticated caller.
type Identity struct {
	Kind    string   // KindToken or KindJWT: the namespace of Subject
	Subject string   // static token name, or the JWT's sub
	Scopes  []string // granted scopes
}

// Has reports whether the identity holds scope.
func (id *Identity) Has(scope string) bool { return slices.Contains(id.Scopes, scope) }

// Verifier checks a bearer token. Failures wrap ErrInvalidToken.
type Verifier interface {
	Verify(ctx context.Context, token string) (*Identity, error)
}

// Options configure Middleware.
type Options struct {
	// Verifiers are tried in order; the first that accepts the token wins.
	Verifiers []Verifier
	// ResourceMetadataURL, if set, is advertised in every challenge
	// (RFC 9728 §5.1).
	ResourceMetadataURL string
	Logger              *slog.Logger // nil means no logs
}

type identityKey struct{}

// FromContext returns the identity Middleware stored, if any.
func FromContext(ctx context.Context) (*Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(*Identity)
	return id, ok
}

// Middleware admits requests whose Authorization header carries a bearer
// token a verifier accepts and that grant at least one Boris scope.
// Tokens are read from the header only, never the query string (RFC 6750
// §2.3 is not supported on purpose: URLs end up in logs).
func Middleware(opts Options) func(http.Handler) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			token, ok := bearer(r)
			if !ok {
				challenge(w, opts, http.StatusUnauthorized, "", "", "bearer token required in the Authorization header")
				return
			}
			id, err := verify(r.Context(), opts.Verifiers, token)
			if err != nil {
				log.Info("authentication failed", "remote", r.RemoteAddr, "reason", err)
				challenge(w, opts, http.StatusUnauthorized, "invalid_token", "", err.Error())
				return
			}
			if !id.Has(ScopeRead) && !id.Has(ScopeWrite) && !id.Has(ScopeExec) {
				challenge(w, opts, http.StatusForbidden, "insufficient_scope", ScopeRead, "the token grants no Boris scope")
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, id)))
		})
	}
}

// bearer extracts the token of an "Authorization: Bearer TOKEN" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || len(token) > maxTokenLen {
		return "", false
	}
	return token, true
}

func verify(ctx context.Context, verifiers []Verifier, token string) (*Identity, error) {
	last := fmt.Errorf("%w: unknown token", ErrInvalidToken)
	for _, v := range verifiers {
		id, err := v.Verify(ctx, token)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, errNotMine) {
			last = err
		}
	}
	return nil, last
}

// errNotMine marks a token a verifier does not handle at all (a static
// token verifier given a JWT, or the reverse).
var errNotMine = fmt.Errorf("%w: not a token of this kind", ErrInvalidToken)

// challenge writes an RFC 6750 §3 error with its WWW-Authenticate header.
func challenge(w http.ResponseWriter, opts Options, status int, code, scope, desc string) {
	params := []string{`realm="boris"`}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", sanitize(desc)))
	}
	if scope != "" {
		params = append(params, fmt.Sprintf("scope=%q", scope))
	}
	if opts.ResourceMetadataURL != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", opts.ResourceMetadataURL))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if code == "" {
		code = "unauthorized"
	}
	fmt.Fprintf(w, `{"error":%q,"error_description":%q}`+"\n", code, sanitize(desc))
}

// sanitize keeps a description to the characters RFC 6750 §3 allows.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return ' '
		}
		return r
	}, s)
}
