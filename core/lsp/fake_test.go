package lsp

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// fakeEnv makes the test binary a fake language server (TestMain).
const fakeEnv = "BORIS_LSP_FAKE"

// fakeToken is what the fake reports: ERR:name is an error "undefined:
// name", WARN:name a warning; SLEEP:ms delays the answer; CRASH ends it.
var fakeToken = regexp.MustCompile(`(ERR|WARN|SLEEP|CRASH)(?::(\w+))?`)

// runFake serves LSP on stdin and stdout: it answers initialize and
// shutdown, and publishes diagnostics (with the document version unless
// BORIS_LSP_FAKE=noversion) for every document opened or changed. With
// BORIS_LSP_FAKE=quiet it publishes, as typescript-language-server does,
// nothing when a document without problems still has none, and answers
// tsserver's synchronous diagnostics requests (syntax: nothing; semantic:
// every problem; suggestion: nothing) through workspace/executeCommand.
func runFake() {
	r := bufio.NewReader(os.Stdin)
	c := &conn{w: os.Stdout, pending: map[string]chan message{}, done: make(chan struct{})}
	mode := os.Getenv(fakeEnv)
	texts := map[string]string{}     // by path: the latest text
	published := map[string][]byte{} // by URI: the latest published diagnostics
	for {
		msg, err := readMessage(r)
		if err != nil {
			os.Exit(0)
		}
		switch msg.Method {
		case "initialize", "shutdown":
			_ = c.send(message{ID: msg.ID, Result: json.RawMessage(`{"capabilities":{"textDocumentSync":1}}`)})
		case "exit":
			os.Exit(0)
		case "textDocument/didOpen", "textDocument/didChange":
			uri, text, params := fakeDiagnostics(msg, mode != "noversion")
			texts[uriPath(uri)] = text
			raw, _ := json.Marshal(params["diagnostics"])
			if mode == "quiet" && string(published[uri]) == "[]" && string(raw) == "[]" {
				continue
			}
			published[uri] = raw
			_ = c.notify("textDocument/publishDiagnostics", params)
		case "workspace/executeCommand":
			var p struct {
				Arguments []json.RawMessage `json:"arguments"`
			}
			var kind string
			var args struct {
				File string `json:"file"`
			}
			_ = json.Unmarshal(msg.Params, &p)
			if len(p.Arguments) == 2 {
				_ = json.Unmarshal(p.Arguments[0], &kind)
				_ = json.Unmarshal(p.Arguments[1], &args)
			}
			body := []map[string]any{}
			if kind == "semanticDiagnosticsSync" {
				body = diagnosticsOf(texts[args.File])
			}
			raw, _ := json.Marshal(map[string]any{"success": true, "body": body})
			_ = c.send(message{ID: msg.ID, Result: raw})
		}
	}
}

// fakeDiagnostics reads an opened or changed document's URI and text and
// returns them with the parameters of its publishDiagnostics.
func fakeDiagnostics(msg message, versioned bool) (uri, text string, params map[string]any) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
			Text    string `json:"text"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Text string `json:"text"`
		} `json:"contentChanges"`
	}
	_ = json.Unmarshal(msg.Params, &p)
	text = p.TextDocument.Text
	if len(p.ContentChanges) > 0 {
		text = p.ContentChanges[0].Text
	}
	params = map[string]any{"uri": p.TextDocument.URI, "diagnostics": diagnosticsOf(text)}
	if versioned {
		params["version"] = p.TextDocument.Version
	}
	return p.TextDocument.URI, text, params
}

// diagnosticsOf returns the fake's problems with text (fakeToken),
// sleeping or crashing where it says so.
func diagnosticsOf(text string) []map[string]any {
	diags := []map[string]any{}
	for i, line := range strings.Split(text, "\n") {
		for _, m := range fakeToken.FindAllStringSubmatchIndex(line, -1) {
			kind, arg := line[m[2]:m[3]], ""
			if m[4] >= 0 {
				arg = line[m[4]:m[5]]
			}
			switch kind {
			case "CRASH":
				if mark := os.Getenv(fakeEnv + "_MARK"); arg == "once" && mark != "" {
					if _, err := os.Stat(mark); err == nil {
						continue // crashed once already
					}
					_ = os.WriteFile(mark, nil, 0o600)
				}
				os.Exit(3)
			case "SLEEP":
				ms, _ := strconv.Atoi(arg)
				time.Sleep(time.Duration(ms) * time.Millisecond)
			default:
				sev, what := 1, "undefined: "
				if kind == "WARN" {
					sev, what = 2, "unused: "
				}
				diags = append(diags, map[string]any{
					"range":    map[string]any{"start": map[string]int{"line": i, "character": m[0]}, "end": map[string]int{"line": i, "character": m[1]}},
					"severity": sev, "source": "fake", "message": what + arg,
				})
			}
		}
	}
	return diags
}
