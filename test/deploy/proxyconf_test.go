package deploy

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mjkoo/boris/internal/flagenv"
)

// TestDeployFilesAgree: the files of deploy/ describe one deployment. The
// gateway listens where the proxies send requests, the public URL names the
// host the proxies serve, and the body limits match.
func TestDeployFilesAgree(t *testing.T) {
	env := parseEnvFile(t, deployFile(t, envExamplePath)).active
	nginx, caddy := deployFile(t, nginxConfPath), deployFile(t, caddyfilePath)

	listen := env["BORIS_GATEWAY_LISTEN"]
	if got := firstMatch(nginx, `(?m)^\s*server\s+(\S+?);`); got != listen {
		t.Errorf("%s upstream server %q, want the env example's BORIS_GATEWAY_LISTEN %q", nginxConfPath, got, listen)
	}
	if got := firstMatch(caddy, `(?m)^\s*reverse_proxy\s+(\S+)`); got != listen {
		t.Errorf("%s reverse_proxy %q, want the env example's BORIS_GATEWAY_LISTEN %q", caddyfilePath, got, listen)
	}

	pub, err := url.Parse(env["BORIS_GATEWAY_PUBLIC_URL"])
	if err != nil || pub.Scheme != "https" || pub.Path != "/mcp" {
		t.Fatalf("BORIS_GATEWAY_PUBLIC_URL=%q: want https://HOST/mcp (the proxies terminate TLS)", env["BORIS_GATEWAY_PUBLIC_URL"])
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*server_name\s+(\S+?);`).FindAllStringSubmatch(nginx, -1) {
		if m[1] != pub.Host {
			t.Errorf("%s server_name %s, want the public URL's host %s", nginxConfPath, m[1], pub.Host)
		}
	}
	if got := firstMatch(caddy, `(?m)^(\S+)\s*\{`); got != pub.Host {
		t.Errorf("%s site address %q, want the public URL's host %s", caddyfilePath, got, pub.Host)
	}

	gwMax := parseSize(t, settings(t, gatewayBin)["max-body"].def)
	if got := parseSize(t, env["BORIS_GATEWAY_MAX_BODY"]); got != gwMax {
		t.Errorf("env example BORIS_GATEWAY_MAX_BODY is %d bytes, want the gateway's default %d", got, gwMax)
	}
	// nginx's default (1m) would refuse messages the gateway accepts.
	if got := parseSize(t, firstMatch(nginx, `client_max_body_size\s+(\S+);`)); got != gwMax {
		t.Errorf("%s client_max_body_size is %d bytes, want the gateway's --max-body %d", nginxConfPath, got, gwMax)
	}
	// Caddy has no limit by default; one below the gateway's would refuse
	// messages the gateway accepts.
	if m := firstMatch(caddy, `(?m)^\s*max_size\s+(\S+)`); m != "" && parseSize(t, strings.TrimSuffix(m, "iB")+"B") < gwMax {
		t.Errorf("%s max_size %s is below the gateway's --max-body", caddyfilePath, m)
	}
}

// TestNginxStreamsSSE checks the directives SSE needs, which the end-to-end
// test can only observe where nginx is installed.
func TestNginxStreamsSSE(t *testing.T) {
	conf := deployFile(t, nginxConfPath)
	for _, want := range []string{
		"proxy_buffering off;",            // each event reaches the client at once
		"proxy_http_version 1.1;",         // chunked, persistent upstream responses
		`proxy_set_header Connection "";`, // keep-alive upstream, no "close"
		"proxy_set_header Host $host;",    // the gateway checks Host against --public-url
		"proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
		"proxy_set_header X-Forwarded-Proto $scheme;",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("%s lacks %q", nginxConfPath, want)
		}
	}
	for _, d := range []string{"proxy_read_timeout", "proxy_send_timeout"} {
		v := firstMatch(conf, d+`\s+(\S+);`)
		if dur, err := time.ParseDuration(v); err != nil || dur < 10*time.Minute {
			t.Errorf("%s %s %q: want at least 10m, the longest a tool call runs", nginxConfPath, d, v)
		}
	}
	// MCP's headers must not be dropped on the way in or out.
	for _, h := range []string{"Mcp-Session-Id", "MCP-Protocol-Version", "Authorization", "WWW-Authenticate"} {
		if regexp.MustCompile(`(?i)proxy_(hide|set)_header\s+` + h + `\b`).MatchString(conf) {
			t.Errorf("%s hides or rewrites %s", nginxConfPath, h)
		}
	}
	if regexp.MustCompile(`(?m)^\s*underscores_in_headers`).MatchString(conf) {
		t.Errorf("%s changes underscores_in_headers; MCP's headers use hyphens and need no change", nginxConfPath)
	}
}

// TestCaddyStreamsSSE: what Caddy needs to stream events.
func TestCaddyStreamsSSE(t *testing.T) {
	conf := deployFile(t, caddyfilePath)
	if !regexp.MustCompile(`(?m)^\s*flush_interval\s+-1\s*$`).MatchString(conf) {
		t.Errorf("%s: want flush_interval -1 in reverse_proxy, each event written at once", caddyfilePath)
	}
	if regexp.MustCompile(`(?m)^\s*encode\b`).MatchString(conf) {
		t.Errorf("%s: encode (compression) holds SSE events back", caddyfilePath)
	}
	for _, d := range []string{"read_timeout", "write_timeout", "response_header_timeout"} {
		if v := firstMatch(conf, `(?m)^\s*`+d+`\s+(\S+)`); v != "" {
			if dur, err := time.ParseDuration(v); err != nil || dur < 10*time.Minute {
				t.Errorf("%s %s %s: want none or at least 10m, the longest a tool call runs", caddyfilePath, d, v)
			}
		}
	}
}

func firstMatch(text, re string) string {
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

// parseSize reads a size as the gateway does ("4MB" = 4 MiB); nginx's
// lower-case units ("4m") mean the same.
func parseSize(t *testing.T, s string) int64 {
	t.Helper()
	var n flagenv.Size
	if err := n.UnmarshalText([]byte(s)); err != nil {
		t.Fatalf("size %q: %v", s, err)
	}
	return int64(n)
}
