package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789ab"
)

func TestStaticTokensVerify(t *testing.T) {
	st, err := NewStaticTokens([]string{"alice=" + aliceToken, bobToken}, "")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(bobToken))
	bobSubject := "token-" + hex.EncodeToString(sum[:4])
	tests := []struct {
		name    string
		token   string
		subject string // "" means the token is refused
	}{
		{"named token", aliceToken, "alice"},
		{"unnamed token gets a digest subject", bobToken, bobSubject},
		{"unknown token", "carol-token-0123456789", ""},
		{"prefix of a token", aliceToken[:len(aliceToken)-1], ""},
		{"token plus a character", aliceToken + "x", ""},
		{"NAME=TOKEN spec is not the token", "alice=" + aliceToken, ""},
		{"different case", strings.ToUpper(aliceToken), ""},
		{"empty", "", ""},
		{"JWT-shaped", "aaa.bbb.ccc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := st.Verify(context.Background(), tt.token)
			if tt.subject == "" {
				if err == nil || !errors.Is(err, ErrInvalidToken) {
					t.Fatalf("got %+v, %v; want an error wrapping ErrInvalidToken", id, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want subject %q", err, tt.subject)
			}
			if id.Subject != tt.subject {
				t.Errorf("subject: got %q, want %q", id.Subject, tt.subject)
			}
			if diff := cmp.Diff(AllScopes, id.Scopes); diff != "" {
				t.Errorf("a static token grants every scope (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStaticTokensTooShort: tokens under 16 characters are refused wherever
// they come from, so guessing is never an option.
func TestStaticTokensTooShort(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		file  string // token file contents, if any
		ok    bool
	}{
		{"15 characters", []string{"0123456789abcde"}, "", false},
		{"16 characters", []string{"0123456789abcdef"}, "", true},
		{"named, short token", []string{"alice=short"}, "", false},
		{"name does not count", []string{"a-very-long-name=short"}, "", false},
		{"empty token", []string{"alice="}, "", false},
		{"short token in the file", nil, "# tokens\nalice=" + aliceToken + "\nbob=tooshort\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.file != "" {
				file = filepath.Join(t.TempDir(), "tokens")
				if err := os.WriteFile(file, []byte(tt.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := NewStaticTokens(tt.specs, file)
			if tt.ok && err != nil {
				t.Errorf("got %v, want the token accepted", err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), "shorter than 16")) {
				t.Errorf("got %v, want an error about tokens shorter than 16 characters", err)
			}
		})
	}
}

// TestTokenFileReload is what SIGHUP does: the file is re-read, new tokens
// work, removed ones stop working, flag tokens stay, and a bad file keeps
// the previous tokens.
func TestTokenFileReload(t *testing.T) {
	const flagToken = "flag-token-0123456789"
	file := filepath.Join(t.TempDir(), "tokens")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("# Boris tokens\n\n  alice=" + aliceToken + "  \n# bob=" + bobToken + "\n")
	st, err := NewStaticTokens([]string{"ops=" + flagToken}, file)
	if err != nil {
		t.Fatal(err)
	}
	accepts := func(token string) string {
		id, err := st.Verify(context.Background(), token)
		if err != nil {
			return ""
		}
		return id.Subject
	}
	steps := []struct {
		name    string
		file    string // "" keeps the file as it is
		wantErr bool
		want    map[string]string // token → subject, "" for refused
	}{
		{"initial file: comments and blank lines skipped", "", false,
			map[string]string{aliceToken: "alice", bobToken: "", flagToken: "ops"}},
		{"bob added, alice removed", "bob=" + bobToken + "\n", false,
			map[string]string{aliceToken: "", bobToken: "bob", flagToken: "ops"}},
		{"bad line keeps the previous tokens", "alice=" + aliceToken + "\nshort\n", true,
			map[string]string{aliceToken: "", bobToken: "bob", flagToken: "ops"}},
		{"empty file leaves the flag tokens", "# nobody\n", false,
			map[string]string{aliceToken: "", bobToken: "", flagToken: "ops"}},
	}
	for i, s := range steps {
		if i > 0 {
			write(s.file)
			if err := st.Reload(); (err != nil) != s.wantErr {
				t.Fatalf("%s: Reload: got %v, want error %v", s.name, err, s.wantErr)
			}
		}
		for token, want := range s.want {
			if got := accepts(token); got != want {
				t.Errorf("%s: token %.8s...: got subject %q, want %q", s.name, token, got, want)
			}
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := st.Reload(); err == nil {
		t.Error("Reload of a missing file: got nil, want an error")
	}
	if got := accepts(flagToken); got != "ops" {
		t.Errorf("after a failed reload: got subject %q, want ops", got)
	}
}

func TestGenerateToken(t *testing.T) {
	a, b := GenerateToken(), GenerateToken()
	if a == b {
		t.Fatalf("two generated tokens are both %q, want different ones", a)
	}
	if !regexp.MustCompile(`^boris_[0-9a-f]{64}$`).MatchString(a) {
		t.Errorf("got %q, want boris_ and 256 bits as 64 hex digits", a)
	}
	st, err := NewStaticTokens(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	st.AddToken("generated", a)
	if id, err := st.Verify(context.Background(), a); err != nil || id.Subject != "generated" {
		t.Errorf("added token: got %+v, %v; want subject generated", id, err)
	}
	if _, err := st.Verify(context.Background(), b); err == nil {
		t.Error("a token never added: got accepted, want refused")
	}
	if st.Len() != 1 {
		t.Errorf("Len: got %d, want 1", st.Len())
	}
}
