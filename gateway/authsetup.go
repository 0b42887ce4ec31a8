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

// authSetup builds verifiers from the settings (SPEC §4). Authentication is
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
		static.AddToken("generated", s.generated)
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

// principal maps the request's identity onto a Principal: subject, the core
// flags its scopes allow, and its working directory from the template.
func (c *Config) principal(r *http.Request) Principal {
	id, ok := auth.FromContext(r.Context())
	if !ok {
		return Principal{}
	}
	p := Principal{Subject: id.Subject, CoreArgs: auth.CoreArgs(id)}
	if c.WorkdirTemplate != "" {
		p.Workdir = strings.ReplaceAll(c.WorkdirTemplate, "{sub}", sanitizeSubject(id.Subject))
		p.Workdir = filepath.Clean(p.Workdir)
	}
	return p
}

// sanitizeSubject makes a subject safe as one path element: letters,
// digits, '.', '-', '_' and '@' kept, everything else '_'; never "." or
// "..". Whenever that changed the subject, or it is long, a hash of the
// original is appended, so distinct subjects never share a directory
// ("team/alice" and "team_alice" differ).
func sanitizeSubject(sub string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_', r == '@':
			return r
		}
		return '_'
	}, sub)
	if strings.Trim(clean, ".") == "" {
		clean = "_" + clean
	}
	if clean == sub && len(clean) <= 64 {
		return clean
	}
	sum := sha256.Sum256([]byte(sub))
	return clean[:min(len(clean), 48)] + "-" + hex.EncodeToString(sum[:6])
}

// printConnect tells the operator how to connect a client, with the
// generated token when there is one. It goes to stderr once, at start-up.
func printConnect(w io.Writer, url, token string) {
	if token == "" {
		return
	}
	fmt.Fprintf(w, `
boris-gateway generated a bearer token for this run (not stored; a restart makes a new one):

  %[2]s

Claude Code:
  claude mcp add --transport http boris %[1]s --header "Authorization: Bearer %[2]s"

Cursor (~/.cursor/mcp.json) and other clients with HTTP support:
  {"mcpServers": {"boris": {"url": "%[1]s", "headers": {"Authorization": "Bearer %[2]s"}}}}

Claude Desktop (through mcp-remote):
  {"mcpServers": {"boris": {"command": "npx", "args": ["mcp-remote", "%[1]s", "--header", "Authorization: Bearer %[2]s"]}}}

`, url, token)
}
