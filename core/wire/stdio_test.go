package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mjkoo/boris/internal/jsonscan"
)

// plainCases are lines for TestPlainMessage and seeds for FuzzPlainMessage.
var plainCases = []struct {
	line   string
	plain  bool
	method string
}{
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","arguments":{"path":"a.txt"}}}`, true, "tools/call"},
	{`{ "method" : "ping" , "id" : "abc", "jsonrpc" : "2.0" }`, true, "ping"},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true, "notifications/initialized"},
	{`{"jsonrpc":"2.0","id":-42,"result":{"x":[1,2,{"y":"}"}]}}`, true, ""},
	{`{"jsonrpc":"2.0","id":1,"method":"x","params":null,"extra":{"a":[]}}`, true, "x"},
	{`{"jsonrpc":"2.0","id":null,"method":"x"}`, true, "x"},
	// Not certain: left for jsonrpc.DecodeMessage to judge.
	{`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, false, ""},
	{`{"jsonrpc":"2.0","id":1.5,"method":"x"}`, false, ""},
	{`{"jsonrpc":"2.0","id":1234567890123456,"method":"x"}`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"Method":"x"}`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"method":"x","method":"y"}`, false, ""},
	// Refused by the SDK too.
	{`{"jsonrpc":"1.0","id":1,"method":"x"}`, false, ""},
	{`{"id":1,"method":"x"}`, false, ""},
	{`{"jsonrpc":"2.0","id":null}`, false, ""},
	{`{"jsonrpc":"2.0","id":{},"method":"x"}`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"method":3}`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"method":"x"`, false, ""},
	{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, false, ""},
	{`{"jsonrpc":"2.0","id":1,"method":"x","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, false, ""},
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", false, ""},
}

func TestPlainMessage(t *testing.T) {
	for _, tc := range plainCases {
		method, ok := plainMessage([]byte(tc.line))
		if ok != tc.plain || string(method) != tc.method {
			t.Errorf("plainMessage(%.80s) = %q, %v; want %q, %v", tc.line, method, ok, tc.method, tc.plain)
		}
	}
}

// FuzzPlainMessage holds plainMessage to what the SDK does: a line it
// calls plain must be valid JSON that jsonrpc.DecodeMessage decodes, to a
// request with the method it found, or to a response.
func FuzzPlainMessage(f *testing.F) {
	for _, tc := range plainCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		method, ok := plainMessage(line)
		if !ok {
			return
		}
		if !json.Valid(line) || jsonscan.TooDeep(line, sdkMaxDepth) {
			t.Fatalf("plainMessage accepted %q, which the SDK's reader refuses", line)
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("plainMessage accepted %q, which jsonrpc.DecodeMessage refuses: %v", line, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.Method != string(method) {
				t.Fatalf("plainMessage(%q) found method %q, DecodeMessage %q", line, method, m.Method)
			}
		case *jsonrpc.Response:
			if method != nil {
				t.Fatalf("plainMessage(%q) found method %q in a response", line, method)
			}
		}
		// The stdio transport decodes a plain message itself: to what the
		// SDK decodes.
		mine, err := decodePlain(line)
		if err != nil {
			t.Fatalf("decodePlain(%q): %v; DecodeMessage took it", line, err)
		}
		if !sameMessage(mine, msg) {
			t.Fatalf("decodePlain(%q) = %#v, DecodeMessage %#v", line, mine, msg)
		}
	})
}

// sameMessage reports whether two decoded messages are the same message.
func sameMessage(a, b jsonrpc.Message) bool {
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && bytes.Equal(a.Params, b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		return ok && a.ID == b.ID && bytes.Equal(a.Result, b.Result) && a.Error == nil && b.Error == nil
	}
	return false
}

// screenLines runs lines through a screenedReader and returns what reaches
// the SDK and what the screen answered itself.
func screenLines(t *testing.T, lines ...string) (passed, replies []string) {
	t.Helper()
	var out bytes.Buffer
	s := newScreenedReader(io.NopCloser(strings.NewReader(strings.Join(lines, "\n")+"\n")), &out, 1<<20)
	for {
		msg, _, err := s.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		passed = append(passed, string(msg))
	}
	return passed, strings.Split(strings.TrimSpace(out.String()), "\n")
}

// TestScreenBatches checks that the batches the SDK would end the session
// over are answered by the screen instead: an empty one, one holding a
// message that is not JSON-RPC, one nested too deep, and any batch once the
// client asked for a protocol version without batches.
func TestScreenBatches(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":9,"method":"ping"}`
	init := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{}}}`
	}
	tests := []struct {
		name      string
		lines     []string
		wantPass  int    // lines reaching the SDK
		wantReply string // in the screen's one reply; "" for none
	}{
		{"batch before initialize", []string{"[" + ping + "]"}, 1, ""},
		{"batch on 2025-03-26", []string{init("2025-03-26"), "[" + ping + "," + ping + "]"}, 2, ""},
		{"empty batch", []string{"[]"}, 0, "an empty batch"},
		{"batch of a non-message", []string{`[{"x":1}]`}, 0, "message 1 of the batch"},
		{"deep batch", []string{strings.Repeat("[", 1001) + strings.Repeat("]", 1001)}, 0, "nested more than 1000 deep"},
		{"batch on 2025-06-18", []string{init("2025-06-18"), "[" + ping + "]"}, 1, "batches are not supported"},
		{"batch on an unknown version", []string{init("1999-01-01"), "[" + ping + "]"}, 1, "batches are not supported"},
		{"a later old initialize does not reopen batches", []string{init("2025-11-25"), init("2025-03-26"), "[" + ping + "]"}, 2, "batches are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			passed, replies := screenLines(t, tt.lines...)
			if len(passed) != tt.wantPass {
				t.Errorf("%d lines reached the SDK, want %d: %q", len(passed), tt.wantPass, passed)
			}
			got := strings.Join(replies, "\n")
			if (tt.wantReply == "") != (got == "") || !strings.Contains(got, tt.wantReply) {
				t.Errorf("screen replied %q, want a reply containing %q", got, tt.wantReply)
			}
		})
	}
}

func BenchmarkScreen(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"view","arguments":{"path":"/tmp/boris-bench/files/small.txt"},"_meta":{"progressToken":3}}}`)
	b.Run("plainMessage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			plainMessage(line)
		}
	})
	b.Run("DecodeMessage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = jsonrpc.DecodeMessage(line)
		}
	})
}

// TestStdioConnBatch: the requests of a batch are read one by one, and
// their responses, written in any order, go out as one array in the
// batch's order; a response to a request outside the batch goes at once.
func TestStdioConnBatch(t *testing.T) {
	in := strings.Join([]string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	}, "\n") + "\n"
	var out lockedBuffer
	tr := &Stdio{in: newScreenedReader(io.NopCloser(strings.NewReader(in)), &out, 1<<20), out: &out}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ids []jsonrpc.ID
	for range 4 {
		msg, err := conn.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			ids = append(ids, req.ID)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("read %d calls, want 3", len(ids))
	}
	respond := func(id jsonrpc.ID, result string) {
		if err := conn.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(result)}); err != nil {
			t.Fatal(err)
		}
	}
	respond(ids[1], `{"tools":[]}`) // the batch's second request first
	if got := out.String(); got != "" {
		t.Fatalf("wrote %q before the batch was answered in full", got)
	}
	respond(ids[2], `{}`) // outside the batch
	respond(ids[0], `{}`)
	want := `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" +
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{"tools":[]}}]` + "\n"
	if got := out.String(); got != want {
		t.Errorf("wrote\n%s\nwant\n%s", got, want)
	}
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("read after the input: %v, want EOF", err)
	}
}

// TestStdioConnCloseEndsRead: Close ends a Read waiting for input that
// never comes, as the SDK requires of a connection.
func TestStdioConnCloseEndsRead(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	var out lockedBuffer
	tr := &Stdio{in: newScreenedReader(r, &out, 1<<20), out: &out}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		done <- err
	}()
	conn.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read returned a message after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still waiting 10 s after Close")
	}
}

// lockedBuffer is a WriteCloser collecting what is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Close() error { return nil }

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStdioAfterResponse: the transport's AfterResponse function is called
// once a response has been written (a batch's once the whole batch is),
// not for a notification or a request of the server's, nor for a batch's
// response held until the others come.
func TestStdioAfterResponse(t *testing.T) {
	in := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n"
	var out lockedBuffer
	tr := &Stdio{in: newScreenedReader(io.NopCloser(strings.NewReader(in)), &out, 1<<20), out: &out}
	var calls []string // what had been written at each call
	tr.AfterResponse(func() { calls = append(calls, out.String()) })
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var ids []jsonrpc.ID
	for range 3 {
		msg, err := conn.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, msg.(*jsonrpc.Request).ID)
	}
	write := func(msg jsonrpc.Message) {
		t.Helper()
		if err := conn.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	write(&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{}`)})
	serverID, err := jsonrpc.MakeID(float64(9))
	if err != nil {
		t.Fatal(err)
	}
	write(&jsonrpc.Request{ID: serverID, Method: "roots/list", Params: json.RawMessage(`{}`)})
	write(&jsonrpc.Response{ID: ids[0], Result: json.RawMessage(`{}`)}) // held: the batch's other is unanswered
	if len(calls) != 0 {
		t.Fatalf("called %d times before any response was written: %q", len(calls), calls)
	}
	write(&jsonrpc.Response{ID: ids[2], Result: json.RawMessage(`{"tools":[]}`)})
	if len(calls) != 1 || !strings.HasSuffix(calls[0], `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`+"\n") {
		t.Fatalf("after the response to 3: calls %q, want one, made once it was written", calls)
	}
	write(&jsonrpc.Response{ID: ids[1], Result: json.RawMessage(`{}`)})
	if len(calls) != 2 || !strings.HasSuffix(calls[1], `{"jsonrpc":"2.0","id":2,"result":{}}]`+"\n") {
		t.Errorf("after the batch: calls %q, want a second, made once the batch was written", calls)
	}
}
