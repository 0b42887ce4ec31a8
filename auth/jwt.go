package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// JWTOptions configure a JWTVerifier. At least one key source is required.
type JWTOptions struct {
	HMACSecret []byte             // checked with CheckHMACSecret
	PublicKeys []crypto.PublicKey // from LoadPublicKey
	JWKSURL    string             // a JSON Web Key Set, fetched and cached

	Issuer   string        // required "iss" when set
	Audience string        // required "aud"; must be set
	Leeway   time.Duration // clock skew allowed for exp, nbf and iat

	// JWKSMinRefresh is the least time between JWKS fetches; 0 means 30s.
	JWKSMinRefresh time.Duration
	HTTPClient     *http.Client // for the JWKS; nil means a client with a 10s timeout
	Logger         *slog.Logger
}

// JWTVerifier checks signed JWTs (golang-jwt/v5): signature with an
// allowed algorithm for the key, exp required, nbf and iat honoured with
// leeway, iss and aud checked, sub required.
type JWTVerifier struct {
	opts   JWTOptions
	static []any // HMAC secret and PEM keys
	jwks   *jwks
	parser *jwt.Parser
}

// NewJWTVerifier validates opts and, with a JWKS URL, fetches the set once
// (a failure here is logged, not fatal: keys are fetched again on demand).
func NewJWTVerifier(_ context.Context, opts JWTOptions) (*JWTVerifier, error) {
	if opts.Audience == "" {
		return nil, errors.New("JWT verification needs an audience: set --jwt-audience or --public-url")
	}
	if opts.HMACSecret == nil && len(opts.PublicKeys) == 0 && opts.JWKSURL == "" {
		return nil, errors.New("JWT verification needs a key: a secret, a public key or a JWKS URL")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	v := &JWTVerifier{opts: opts}
	if opts.HMACSecret != nil {
		v.static = append(v.static, opts.HMACSecret)
	}
	for _, k := range opts.PublicKeys {
		v.static = append(v.static, k)
	}
	if opts.JWKSURL != "" {
		v.jwks = newJWKS(opts)
		v.jwks.lastFetch = time.Now()
		v.jwks.refresh()
	}
	v.parser = jwt.NewParser(v.parserOptions()...)
	return v, nil
}

func newJWKS(opts JWTOptions) *jwks {
	client, interval := opts.HTTPClient, opts.JWKSMinRefresh
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if interval <= 0 {
		interval = 30 * time.Second
	}
	return &jwks{url: opts.JWKSURL, client: client, minInterval: interval, log: opts.Logger, keys: map[string][]any{}}
}

func (v *JWTVerifier) parserOptions() []jwt.ParserOption {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(allAlgs),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(v.opts.Leeway),
		jwt.WithAudience(v.opts.Audience),
		jwt.WithStrictDecoding(),
	}
	if v.opts.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.opts.Issuer))
	}
	return opts
}

// Verify checks a JWT and returns its subject and scopes (the "scope"
// claim, space-separated, or "scp", a list or a string).
func (v *JWTVerifier) Verify(_ context.Context, token string) (*Identity, error) {
	if strings.Count(token, ".") != 2 {
		return nil, errNotMine
	}
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(token, claims, v.keyfunc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	sub, _ := claims["sub"].(string)
	if sub == "" {
		return nil, fmt.Errorf("%w: no sub claim", ErrInvalidToken)
	}
	return &Identity{Kind: KindJWT, Subject: sub, Scopes: scopesOf(claims)}, nil
}

// keyfunc returns the keys that may verify t: those whose type allows t's
// algorithm, chosen by kid from the JWKS (refreshed once for an unknown kid).
func (v *JWTVerifier) keyfunc(t *jwt.Token) (any, error) {
	if err := checkCrit(t.Header); err != nil {
		return nil, err
	}
	alg := t.Method.Alg()
	kid, _ := t.Header["kid"].(string)
	candidates := v.static
	if v.jwks != nil {
		candidates = append(append([]any{}, v.static...), v.jwks.lookup(kid)...)
	}
	var set jwt.VerificationKeySet
	for _, k := range candidates {
		if allows(k, alg) {
			set.Keys = append(set.Keys, k)
		}
	}
	if len(set.Keys) == 0 {
		return nil, fmt.Errorf("no key for alg %s and kid %q", alg, kid)
	}
	return set, nil
}

// checkCrit refuses a token whose header has a "crit" parameter. RFC 7515
// §4.1.11: "If any of the listed extension Header Parameters are not
// understood and supported by the recipient, then the JWS is invalid", and
// "Producers MUST NOT use the empty list". Boris understands no extension
// header parameter, so every crit, empty or not, makes the token invalid.
// It runs before the signature is checked: the header is the signer's
// word, and a token whose signer says it must not be read without an
// extension is refused whatever it carries.
func checkCrit(header map[string]any) error {
	crit, ok := header["crit"]
	if !ok {
		return nil
	}
	return fmt.Errorf("the JWS header names critical extensions this server does not understand (crit %v; RFC 7515 §4.1.11)", crit)
}

// scopesOf reads OAuth scopes from "scope" (RFC 8693 §4.2) or "scp".
func scopesOf(claims jwt.MapClaims) []string {
	switch s := claims["scope"].(type) {
	case string:
		return strings.Fields(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		var out []string
		for _, x := range s {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}
