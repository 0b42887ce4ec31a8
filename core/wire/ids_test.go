package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestIDKeeperRoundTrip: a request's id comes back in its response as the
// client wrote it, whatever go-sdk makes of it; ids go-sdk keeps exactly
// are left alone; a cancellation naming a kept id names its stand-in.
func TestIDKeeperRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		id       string
		standsIn bool
	}{
		{`7`, false}, {`"plain"`, false}, {`-7`, false},
		{`1.5`, true}, {`-0`, true}, {`1e2`, true}, {`9223372036854775808`, true},
		{`12345678901234567890123`, true}, {`"a\u0041"`, true}, {`"<&>"`, true},
	} {
		t.Run(tc.id, func(t *testing.T) {
			var k idKeeper
			line := []byte(`{"jsonrpc":"2.0","id":` + tc.id + `,"method":"ping"}`)
			msg, err := jsonrpc.DecodeMessage(line)
			if err != nil {
				t.Fatal(err)
			}
			req := k.keep(msg, line).(*jsonrpc.Request)
			s, isString := req.ID.Raw().(string)
			if got := isString && strings.HasPrefix(s, "boris-id-"); got != tc.standsIn {
				t.Fatalf("stand-in for %s: got %v (id %v), want %v", tc.id, got, req.ID.Raw(), tc.standsIn)
			}
			cancel := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + tc.id + `,"reason":"r"}}`)
			cmsg, err := jsonrpc.DecodeMessage(cancel)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				RequestID any `json:"requestId"`
			}
			if err := json.Unmarshal(k.keep(cmsg, cancel).(*jsonrpc.Request).Params, &p); err != nil {
				t.Fatal(err)
			}
			if want, _ := jsonrpc.MakeID(p.RequestID); tc.standsIn && want != req.ID {
				t.Errorf("cancellation of %s: names %v, want the stand-in %v", tc.id, p.RequestID, req.ID.Raw())
			}
			out, err := encodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"jsonrpc":"2.0","id":` + tc.id + `,"result":{}}`
			if got := string(k.restore(req.ID, out)); got != want {
				t.Errorf("response: got %s, want %s", got, want)
			}
			if tc.standsIn && len(k.byID)+len(k.byRaw)+len(k.quoted) != 0 {
				t.Errorf("after the response the keeper still holds %d stand-ins, want none", len(k.byID))
			}
		})
	}
}
