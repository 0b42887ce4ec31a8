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
// BORIS_LSP_FAKE=noversion) for every document opened or changed.
func runFake() {
	r := bufio.NewReader(os.Stdin)
	c := &conn{w: os.Stdout, pending: map[string]chan message{}, done: make(chan struct{})}
	versioned := os.Getenv(fakeEnv) != "noversion"
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
			fakePublish(c, msg, versioned)
		}
	}
}

// fakePublish publishes the diagnostics of an opened or changed document.
func fakePublish(c *conn, msg message, versioned bool) {
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
	text := p.TextDocument.Text
	if len(p.ContentChanges) > 0 {
		text = p.ContentChanges[0].Text
	}
	var diags []map[string]any
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
	params := map[string]any{"uri": p.TextDocument.URI, "diagnostics": append([]map[string]any{}, diags...)}
	if versioned {
		params["version"] = p.TextDocument.Version
	}
	_ = c.notify("textDocument/publishDiagnostics", params)
}
