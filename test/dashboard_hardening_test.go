package test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// dashLogin logs in to the dashboard at base with token, as the login form
// does (a same-origin POST), and returns the login cookie.
func dashLogin(t *testing.T, c *http.Client, base, token string) *http.Cookie {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/dashboard/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("log in: %v", err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Value != "" {
			return ck
		}
	}
	t.Fatalf("log in: got %d and no cookie, want a login cookie", resp.StatusCode)
	return nil
}

// dashStateStatus fetches /dashboard/state with cookie and returns the
// status and body.
func dashStateStatus(t *testing.T, c *http.Client, base string, cookie *http.Cookie) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/dashboard/state", nil)
	req.AddCookie(cookie)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET /dashboard/state: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET /dashboard/state: read body: %v", err)
	}
	return resp.StatusCode, string(body)
}

// TestDashboardLoginFlood: a principal that logs in 2,000 times (past the
// gateway's 1,024 logins in all) loses only its own oldest logins; another
// principal's login stays valid.
func TestDashboardLoginFlood(t *testing.T) {
	g := startDashGateway(t)
	base := strings.TrimSuffix(g.url, "/mcp")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	alice := dashLogin(t, c, base, browserAlice)
	var bobFirst, bobLast *http.Cookie
	for i := range 2000 {
		bobLast = dashLogin(t, c, base, browserBob)
		if i == 0 {
			bobFirst = bobLast
		}
	}
	if status, body := dashStateStatus(t, c, base, alice); status != http.StatusOK || !strings.Contains(body, `"subject":"alice"`) {
		t.Errorf("alice's login after bob logged in 2,000 times: got %d %.200s, want 200 and alice's state", status, body)
	}
	if status, body := dashStateStatus(t, c, base, bobLast); status != http.StatusOK || !strings.Contains(body, `"subject":"bob"`) {
		t.Errorf("bob's newest login: got %d %.200s, want 200 and bob's state", status, body)
	}
	if status, _ := dashStateStatus(t, c, base, bobFirst); status != http.StatusUnauthorized {
		t.Errorf("bob's first of 2,000 logins: got %d, want 401 (a principal's oldest logins go first)", status)
	}
}
