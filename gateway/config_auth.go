package gateway

import (
	"context"
	"crypto"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjkoo/boris/auth"
)

// authSetup is the authentication a configuration asks for.
type authSetup struct {
	middleware func(http.Handler) http.Handler // nil with --auth none
	static     *auth.StaticTokens              // re-read on SIGHUP
	generated  string                          // a token made at start-up, printed once
	metadata   http.Handler                    // RFC 9728 metadata, or nil
}

// authSetup builds verifiers from the settings (docs/reference/gateway.md#authentication). Authentication is
// on unless --auth none is given; with no token or key configured a token is
// generated, so the default is secure and still one command to run.
func (c *Config) authSetup(ctx context.Context, log *slog.Logger) (*authSetup, error) {
	if c.Auth == "none" {
		return c.noAuth()
	}
	static, err := auth.NewStaticTokens(c.Tokens, c.TokenFile)
	if err != nil {
		return nil, usage("invalid token settings: %v", err)
	}
	verifiers := []auth.Verifier{static}
	jwtv, err := c.jwtVerifier(ctx, log)
	if err != nil {
		return nil, err
	}
	if jwtv != nil {
		verifiers = append(verifiers, jwtv)
	}
	s := &authSetup{static: static}
	if c.GenerateToken || (static.Len() == 0 && jwtv == nil) {
		s.generated = auth.GenerateToken()
		static.AddToken(generatedSubject, s.generated)
	}
	opts := auth.Options{Verifiers: verifiers, Logger: log}
	if len(c.AuthorizationServer) > 0 {
		opts.ResourceMetadataURL = auth.MetadataURL(c.PublicURL)
		s.metadata = auth.MetadataHandler(c.PublicURL, c.AuthorizationServer)
	}
	s.middleware = auth.Middleware(opts)
	return s, nil
}

func (c *Config) noAuth() (*authSetup, error) {
	if len(c.Tokens) > 0 || c.TokenFile != "" || c.GenerateToken || c.jwtConfigured() {
		return nil, usage("--auth none conflicts with the token and JWT settings given")
	}
	if !c.loopback() {
		return nil, usage("--auth none is allowed only on a loopback --listen address, not %s", c.Listen)
	}
	return &authSetup{}, nil
}

// onePrincipal reports whether the token generated at start-up is the
// only credential the gateway accepts (nothing configured, as with make
// run): there is then exactly one principal, subject "generated", the
// person who started the gateway and was shown the token. It is the
// dashboard's operator (it may read /metrics) and keeps its board and
// checkpoints where boris keeps them for its user, as with --auth none.
func (c *Config) onePrincipal() bool {
	return c.Auth != "none" && len(c.Tokens) == 0 && c.TokenFile == "" && !c.jwtConfigured()
}

// generatedSubject is the subject of the token generated at start-up.
const generatedSubject = "generated"

func (c *Config) jwtConfigured() bool {
	return c.JWTSecretFile != "" || c.JWTSecret != "" || len(c.JWTPublicKeys) > 0 || c.JWKSURL != ""
}

// jwtVerifier builds the JWT verifier, or nil when no JWT key is configured.
func (c *Config) jwtVerifier(ctx context.Context, log *slog.Logger) (*auth.JWTVerifier, error) {
	if !c.jwtConfigured() {
		return nil, nil
	}
	opts := auth.JWTOptions{JWKSURL: c.JWKSURL, Issuer: c.JWTIssuer, Audience: c.JWTAudience, Leeway: c.JWTLeeway, Logger: log}
	if opts.Audience == "" {
		opts.Audience = c.PublicURL
	}
	var err error
	switch {
	case c.JWTSecretFile != "":
		opts.HMACSecret, err = auth.LoadHMACSecret(c.JWTSecretFile)
	case c.JWTSecret != "":
		opts.HMACSecret, err = auth.CheckHMACSecret([]byte(c.JWTSecret))
	}
	if err != nil {
		return nil, usage("invalid JWT secret: %v", err)
	}
	for _, path := range c.JWTPublicKeys {
		key, err := auth.LoadPublicKey(path)
		if err != nil {
			return nil, usage("invalid --jwt-public-key: %v", err)
		}
		opts.PublicKeys = append(opts.PublicKeys, crypto.PublicKey(key))
	}
	v, err := auth.NewJWTVerifier(ctx, opts)
	if err != nil {
		return nil, usage("%v", err)
	}
	return v, nil
}

// principal maps the request's identity onto a Principal: subject, the keys
// its sessions are bound to and counted by, the core flags its scopes allow,
// and its working directory from the template.
func (c *Config) principal(r *http.Request) Principal {
	id, ok := auth.FromContext(r.Context())
	if !ok {
		return Principal{}
	}
	p := Principal{Subject: id.Subject, CoreArgs: auth.CoreArgs(id)}
	p.SubjectKey, p.Key = principalKeys(id)
	if c.WorkdirTemplate != "" {
		p.Workdir = strings.ReplaceAll(c.WorkdirTemplate, "{sub}", sanitizeSubject(id.Kind, id.Subject))
		p.Workdir = filepath.Clean(p.Workdir)
	}
	return p
}

// principalKeys returns the keys of Principal.SubjectKey (kind and subject)
// and Principal.Key (those and the Boris scopes the identity holds, sorted).
// Only scopes in auth.AllScopes count: they alone decide what a core may do,
// and none holds a space or a NUL, so the key reads back one way only (kind
// has no NUL; the last NUL ends the subject, whatever it contains). Other
// scopes, such as openid, may come and go between tokens without costing
// the client its session.
func principalKeys(id *auth.Identity) (subject, key string) {
	var scopes []string
	for _, s := range auth.AllScopes {
		if id.Has(s) {
			scopes = append(scopes, s)
		}
	}
	slices.Sort(scopes)
	subject = id.Kind + "\x00" + id.Subject
	return subject, subject + "\x00" + strings.Join(scopes, " ")
}

// Working directory names (see sanitizeSubject).
const (
	maxVerbatimSubject = 64 // longest subject used as is
	maxCleanPrefix     = 48 // longest readable part of a hashed name
	subjectHashLen     = 32 // hex digits of SHA-256 in a hashed name: 128 bits
)

// sanitizeSubject names the working directory of the subject sub of the
// given kind (auth.KindToken or auth.KindJWT): one path element, the same
// for the same pair and different for different pairs.
//
// A subject is used as is when it is clean: 1 to 64 characters of
// [a-z0-9._@-], not all dots. Any other subject (upper case included, so
// that case-insensitive file systems keep names apart) becomes its clean
// transcription (upper case lowered, anything else '_') cut to 48 bytes,
// then '~', then 32 hex digits of SHA-256(kind NUL sub). Subjects of any
// kind but static tokens get the prefix kind+"+" ("jwt+alice").
//
// Why no two pairs share a name:
//   - The kind is readable from the name: '+' appears in no clean name, no
//     transcription and no digest, so a name holds a '+' exactly when its
//     kind is not KindToken, and the kind is what precedes it (kinds hold no
//     '+'). Equal names therefore have equal kinds and equal remainders.
//   - Within a kind, a verbatim name holds no '~' and a hashed one exactly
//     one, so equal remainders are both verbatim, which means equal
//     subjects, or both hashed, with the same 32 digits after the '~': a
//     collision of SHA-256 cut to 128 bits between distinct inputs (a
//     birthday search takes about 2^64 hashes; matching someone else's
//     name, 2^128).
//   - Every name is lower-case ASCII, so neither case folding nor Unicode
//     normalisation by the file system can merge two of them.
//
// And why it is one safe path element: its characters are [a-z0-9._@~+-]
// (no '/', no NUL); it is never empty, "." or ".." (a verbatim subject is
// not all dots, a hashed name holds '~', a prefixed one '+'); it is at most
// 4+48+1+32 = 85 bytes, well under NAME_MAX.
func sanitizeSubject(kind, sub string) string {
	prefix := ""
	if kind != auth.KindToken {
		prefix = kind + "+"
	}
	if cleanSubject(sub) {
		return prefix + sub
	}
	transcribed := strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		case cleanRune(r):
			return r
		}
		return '_' // invalid UTF-8 too: one '_' per byte, so ASCII throughout
	}, sub)
	sum := sha256.Sum256([]byte(kind + "\x00" + sub))
	return prefix + transcribed[:min(len(transcribed), maxCleanPrefix)] + "~" + hex.EncodeToString(sum[:])[:subjectHashLen]
}

// cleanSubject reports whether sub may name a directory as it is.
func cleanSubject(sub string) bool {
	if sub == "" || len(sub) > maxVerbatimSubject || strings.Trim(sub, ".") == "" {
		return false
	}
	for _, r := range sub {
		if !cleanRune(r) {
			return false
		}
	}
	return true
}

// cleanRune reports whether r may appear in a verbatim name: lower-case
// ASCII letters, digits, '.', '_', '@' and '-'; never '~' or '+', which
// mark hashed and prefixed names.
func cleanRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '@', r == '-':
		return true
	}
	return false
}

// printConnect tells the operator how to connect a client, with the
// generated token when there is one, and how to see the dashboard and the
// metrics with it (operator: the token may read /metrics; otherwise what
// would make it so). It goes to stderr once, at start-up.
func printConnect(w io.Writer, url, token string, operator bool) {
	if token == "" {
		return
	}
	base := strings.TrimSuffix(url, "/mcp")
	fmt.Fprintf(w, `
boris-gateway generated a bearer token for this run (not stored; a restart makes a new one):

  %[2]s

Claude Code:
  claude mcp add --transport http boris %[1]s --header "Authorization: Bearer %[2]s"

Cursor (~/.cursor/mcp.json) and other clients with HTTP support:
  {"mcpServers": {"boris": {"url": "%[1]s", "headers": {"Authorization": "Bearer %[2]s"}}}}

Claude Desktop (through mcp-remote):
  {"mcpServers": {"boris": {"command": "npx", "args": ["mcp-remote", "%[1]s", "--header", "Authorization: Bearer %[2]s"]}}}

Dashboard: open %[3]s/dashboard and log in with the token.
`, url, token, base)
	if operator {
		fmt.Fprintf(w, "Metrics (Prometheus text; the token's subject, %q, is the dashboard operator):\n  curl -H \"Authorization: Bearer %s\" %s/metrics\n\n", generatedSubject, token, base)
		return
	}
	fmt.Fprintf(w, "Metrics: this token (subject %q) may read %s/metrics once the gateway is started with --dashboard-operator %s.\n\n", generatedSubject, base, generatedSubject)
}
