package extensions

//lint:file-ignore SA1019 sampling and roots are deprecated by the 2026-07-28 revision but are what extension tools may ask a client for (docs/reference/core.md#extensions)

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/internal/safefile"
)

// The client channel of extension tools: a tool asks its client something
// (elicitation/create, sampling/createMessage or roots/list) by appending a
// question to its call's input file, and reads the answer from the file
// answer.KEY beside it, which only the core writes (atomically). The SDK's
// mcp_elicit*, mcp_sample and mcp_client_roots do this; a tool can also
// use mcp_input_request and mcp_input_response itself. Lines of the input
// file:
//
//	{"ask":"KEY","method":"elicitation/create","params":{...}}
//	{"wait":"KEY"}
//
// How a question reaches the client depends on the request's revision:
//
//   - A session (2025 revisions) has requests from server to client: the
//     core sends the question on the session at once and writes the answer
//     when it comes. The tool keeps running meanwhile.
//   - A 2026-07-28 request has none (SEP-2322): once the tool waits for an
//     answer it does not have, it is stopped, and the call ends with an
//     InputRequiredResult asking every question the tool asked, and a
//     requestState. The client answers them and calls again with its
//     inputResponses and the requestState; the tool runs again from the
//     start with every answer given so far already written, so the
//     questions it asked before are answered at once. The requestState
//     carries the earlier rounds' answers, signed with a key of this process,
//     so that no client can forge or alter them.
//
// A question is refused (answered with an error) when its key or method is
// not one of these, when the client did not declare the capability it
// needs, or past inputMaxQuestions in one call. Everything the tool writes
// is hostile input: read through the call's directory descriptor, bounded
// per line (readNewLines), never followed through a link.

// inputFile is the file of a call's questions; answers are inputAnswer+KEY.
const (
	inputFile   = "input"
	inputAnswer = "answer."
)

// inputMaxQuestions bounds the questions one call (one round of a
// 2026-07-28 call) may ask. As many more are refused (answered with an
// error); beyond those, questions are ignored: a tool cannot make the core
// write files or keep keys without end.
const inputMaxQuestions = 64

// inputMaxState bounds a requestState, and so the answers it carries.
const inputMaxState = 1 << 20

// inputStateTTL is how long a requestState is good for.
const inputStateTTL = time.Hour

// inputKey is what a question's key may be: a file name's part, and a
// JSON object key a client shows no one.
var inputKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`) })

// inputCapability is the client capability each method needs.
var inputCapability = map[string]string{
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"roots/list":             "roots",
}

// clientCaps are the capabilities a request's client declared that the
// channel cares about.
type clientCaps struct{ elicitation, sampling, roots bool }

func capsOf(req *mcp.CallToolRequest) clientCaps { return capsOfClient(req.ClientCapabilities()) }

func capsOfClient(c *mcp.ClientCapabilities) clientCaps {
	if c == nil {
		return clientCaps{}
	}
	return clientCaps{elicitation: c.Elicitation != nil, sampling: c.Sampling != nil, roots: c.RootsV2 != nil}
}

func (c clientCaps) has(name string) bool {
	switch name {
	case "elicitation":
		return c.elicitation
	case "sampling":
		return c.sampling
	case "roots":
		return c.roots
	}
	return false
}

// env is the variables that tell the SDK what it may ask.
func (c clientCaps) env() []string {
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	return []string{"MCP_ELICIT_SUPPORTED=" + b(c.elicitation), "MCP_SAMPLING_SUPPORTED=" + b(c.sampling), "MCP_ROOTS_SUPPORTED=" + b(c.roots)}
}

// inputChannel is one call's channel.
type inputChannel struct {
	ctx    context.Context
	req    *mcp.CallToolRequest
	root   *safefile.Dir
	caps   clientCaps
	rounds bool   // a 2026-07-28 request: questions end the call
	stop   func() // stops the tool (rounds)
	key    *stateKey
	off    int64
	wg     sync.WaitGroup // questions on their way to a session's client

	mu       sync.Mutex
	asked    int
	seen     map[string]bool            // keys asked
	known    map[string]json.RawMessage // answers given (rounds): from the state and the request
	pending  map[string]json.RawMessage // questions asked and not answered (rounds): {"method","params"}
	needed   bool                       // the tool waits for one of pending (rounds)
	round    int
	toolName string
}

// newInputChannel prepares a call's channel: for a 2026-07-28 retry, the
// answers its requestState and inputResponses carry, written for the tool
// to find. An error is the client's (a requestState that is forged,
// expired or another call's; an answer that cannot be one) and answers the
// request as invalid params.
func newInputChannel(ctx context.Context, req *mcp.CallToolRequest, root *safefile.Dir, key *stateKey, args []byte) (*inputChannel, error) {
	in := &inputChannel{ctx: ctx, req: req, root: root, caps: capsOf(req), key: key, seen: map[string]bool{}, round: 1, toolName: req.Params.Name}
	in.rounds = req.ProtocolVersion() >= "2026-07-28"
	if !in.rounds {
		return in, nil
	}
	in.known, in.pending = map[string]json.RawMessage{}, map[string]json.RawMessage{}
	if st := req.Params.RequestState; st != "" {
		s, err := key.open(st, req.Params.Name, args)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState refused: " + err.Error() + "; call the tool again without requestState and inputResponses"}
		}
		maps.Copy(in.known, s.Answers)
		in.round = s.Round + 1
	}
	for k, v := range req.Params.InputResponses {
		if !inputKey().MatchString(k) || v == nil {
			continue // not a question Boris asks: ignored, as SEP-2322 says
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("inputResponses[%q]: %v", k, err)}
		}
		in.known[k] = raw
	}
	for k, v := range in.known {
		if err := in.answer(k, v); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// poll handles the questions and waits the tool wrote since the last poll.
func (in *inputChannel) poll() {
	for _, line := range readNewLines(in.root, inputFile, &in.off) {
		var l struct {
			Ask    string          `json:"ask"`
			Wait   string          `json:"wait"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch {
		case l.Ask != "":
			in.question(l.Ask, l.Method, l.Params)
		case l.Wait != "":
			in.waits(l.Wait)
		}
	}
}

// question handles one question.
func (in *inputChannel) question(key, method string, params json.RawMessage) {
	if !inputKey().MatchString(key) {
		return // no answer file could be named for it
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.seen[key] || in.asked >= 2*inputMaxQuestions {
		return // past twice the limit even refusals stop: no file, no memory
	}
	in.seen[key] = true
	if in.asked++; in.asked > inputMaxQuestions {
		in.refuse(key, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a call may ask its client at most %d questions", inputMaxQuestions), nil)
		return
	}
	capName, ok := inputCapability[method]
	if !ok {
		in.refuse(key, jsonrpc.CodeMethodNotFound, fmt.Sprintf("%q cannot be asked of a client: ask elicitation/create, sampling/createMessage or roots/list", method), nil)
		return
	}
	if !in.caps.has(capName) {
		in.refuse(key, mcp.CodeMissingRequiredClientCapabilities, "the client did not declare the "+capName+" capability", map[string]any{"requiredCapabilities": map[string]any{capName: map[string]any{}}})
		return
	}
	if len(params) == 0 || params[0] != '{' {
		params = json.RawMessage("{}")
	}
	q, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err == nil {
		var m mcp.InputRequestMap
		err = json.Unmarshal(fmt.Appendf(nil, `{"q":%s}`, q), &m)
	}
	if err != nil {
		in.refuse(key, jsonrpc.CodeInvalidParams, "malformed "+method+" params: "+err.Error(), nil)
		return
	}
	if in.rounds {
		if a, ok := in.known[key]; ok {
			_ = in.answer(key, a) // a tool that asks again: the answer it had
			return
		}
		in.pending[key] = q
		return
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		in.ask(key, method, params)
	}()
}

// waits notes that the tool waits for key's answer: on a 2026-07-28
// request, when it has none, the round is over.
func (in *inputChannel) waits(key string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.rounds || in.needed || in.pending[key] == nil {
		return
	}
	in.needed = true
	in.stop()
}

// ask sends a question to a session's client and writes its answer.
func (in *inputChannel) ask(key, method string, params json.RawMessage) {
	res, err := askClient(in.ctx, in.req.Session, method, params)
	in.mu.Lock()
	defer in.mu.Unlock()
	if err != nil {
		var jerr *jsonrpc.Error
		code := int64(jsonrpc.CodeInternalError)
		if errors.As(err, &jerr) {
			code = jerr.Code
		}
		in.refuse(key, code, err.Error(), nil)
		return
	}
	_ = in.answer(key, res)
}

// askClient sends one question to a session's client and returns its
// answer as JSON.
func askClient(ctx context.Context, s *mcp.ServerSession, method string, params json.RawMessage) (json.RawMessage, error) {
	var res any
	var err error
	switch method {
	case "elicitation/create":
		var p mcp.ElicitParams
		if err = json.Unmarshal(params, &p); err == nil {
			res, err = s.Elicit(ctx, &p)
		}
	case "sampling/createMessage":
		var p mcp.CreateMessageWithToolsParams
		if err = json.Unmarshal(params, &p); err == nil {
			res, err = s.CreateMessageWithTools(ctx, &p)
		}
	case "roots/list":
		var p mcp.ListRootsParams
		if err = json.Unmarshal(params, &p); err == nil {
			res, err = s.ListRoots(ctx, &p)
		}
	default:
		err = fmt.Errorf("%q cannot be asked of a client", method)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// refuse answers key with an error, as {"error":{...}}: the SDK's helpers
// turn that into their documented failure. Called with in.mu held.
func (in *inputChannel) refuse(key string, code int64, msg string, data any) {
	e := map[string]any{"code": code, "message": msg}
	if data != nil {
		e["data"] = data
	}
	raw, _ := json.Marshal(map[string]any{"error": e})
	_ = in.answer(key, raw)
}

// answer writes key's answer for the tool.
func (in *inputChannel) answer(key string, raw json.RawMessage) error {
	if err := in.root.WriteFile(inputAnswer+key, append(bytes.Clone(raw), '\n'), 0o600); err != nil {
		return fmt.Errorf("could not answer the tool's question %q: %w", key, err)
	}
	return nil
}

// close waits for the questions on their way to a session's client; the
// call's context has ended them or they were answered.
func (in *inputChannel) close() { in.wg.Wait() }

// result is the InputRequiredResult of a round that ended for want of
// answers, nil if the call did not end so.
func (in *inputChannel) result(args []byte) (*mcp.CallToolResult, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.needed {
		return nil, nil
	}
	qs := make([]string, 0, len(in.pending))
	for k, q := range in.pending {
		qs = append(qs, fmt.Sprintf("%q:%s", k, q))
	}
	slices.Sort(qs)
	var m mcp.InputRequestMap
	if err := json.Unmarshal([]byte("{"+strings.Join(qs, ",")+"}"), &m); err != nil {
		return nil, err
	}
	st, err := in.key.seal(requestState{Tool: in.toolName, Args: argsDigest(args), Answers: in.known, Round: in.round, Expires: time.Now().Add(inputStateTTL).Unix()})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequests: m, RequestState: st}, nil
}

// requestState is what a 2026-07-28 round hands the client to give back:
// the answers so far, bound to the tool and its arguments.
type requestState struct {
	Tool    string                     `json:"t"`
	Args    string                     `json:"a"`
	Answers map[string]json.RawMessage `json:"r"`
	Round   int                        `json:"n"`
	Expires int64                      `json:"e"`
}

func argsDigest(args []byte) string {
	sum := sha256.Sum256(args)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// stateKey signs requestStates: HMAC-SHA256 with a key made at start, so a
// state outlives neither the core nor inputStateTTL.
type stateKey struct{ k [32]byte }

func newStateKey() *stateKey {
	var s stateKey
	_, _ = rand.Read(s.k[:])
	return &s
}

func (s *stateKey) mac(body []byte) []byte {
	h := hmac.New(sha256.New, s.k[:])
	h.Write(body)
	return h.Sum(nil)
}

// seal encodes st as BODY.MAC, both base64url.
func (s *stateKey) seal(st requestState) (string, error) {
	body, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	out := enc.EncodeToString(body) + "." + enc.EncodeToString(s.mac(body))
	if len(out) > inputMaxState {
		return "", fmt.Errorf("the answers given so far exceed %d bytes", inputMaxState)
	}
	return out, nil
}

// open checks and decodes a state sealed for tool called with args.
func (s *stateKey) open(state, tool string, args []byte) (*requestState, error) {
	if len(state) > inputMaxState {
		return nil, errors.New("too long")
	}
	enc := base64.RawURLEncoding
	b64, m64, ok := bytes.Cut([]byte(state), []byte("."))
	body, err1 := enc.DecodeString(string(b64))
	mac, err2 := enc.DecodeString(string(m64))
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(body)) {
		return nil, errors.New("it is not one this server issued, or was altered")
	}
	var st requestState
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, errors.New("malformed")
	}
	switch {
	case st.Tool != tool || st.Args != argsDigest(args):
		return nil, errors.New("it was issued for another call (another tool or other arguments)")
	case time.Now().Unix() > st.Expires:
		return nil, errors.New("it expired")
	}
	return &st, nil
}
