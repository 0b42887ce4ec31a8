package extensions

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRequestState: a sealed state opens for the tool and arguments it was
// sealed for, with its answers; another key, tool or arguments, an altered
// body or MAC, an expired state and an oversized one are refused.
func TestRequestState(t *testing.T) {
	k := newStateKey()
	args := []byte(`{"a":1}`)
	st := requestState{Tool: "t", Args: argsDigest(args), Answers: map[string]json.RawMessage{"elicit-1": json.RawMessage(`{"action":"accept"}`)}, Round: 2, Expires: time.Now().Add(time.Minute).Unix()}
	sealed, err := k.seal(st)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.open(sealed, "t", args)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if got.Round != 2 || string(got.Answers["elicit-1"]) != `{"action":"accept"}` {
		t.Errorf("opened %+v", got)
	}

	body, mac, _ := strings.Cut(sealed, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"n":2`, `"n":9`, 1))) + "." + mac
	expired := st
	expired.Expires = time.Now().Add(-time.Second).Unix()
	expiredSealed, _ := k.seal(expired)
	for name, c := range map[string]struct {
		key        *stateKey
		state, why string
		tool       string
		args       []byte
	}{
		"another core's key": {newStateKey(), sealed, "not one this server issued", "t", args},
		"another tool":       {k, sealed, "another call", "u", args},
		"other arguments":    {k, sealed, "another call", "t", []byte(`{"a":2}`)},
		"altered body":       {k, forged, "not one this server issued", "t", args},
		"no MAC":             {k, body, "not one this server issued", "t", args},
		"expired":            {k, expiredSealed, "expired", "t", args},
		"oversized":          {k, strings.Repeat("A", inputMaxState+1), "too long", "t", args},
	} {
		if _, err := c.key.open(c.state, c.tool, c.args); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.why)
		}
	}

	big := st
	big.Answers = map[string]json.RawMessage{"x": json.RawMessage(`"` + strings.Repeat("x", inputMaxState) + `"`)}
	if _, err := k.seal(big); err == nil {
		t.Error("sealing answers over the limit succeeded")
	}
}
