package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Language is one language Boris knows a server for.
type Language struct {
	Name    string            // what --lsp names it: go, python, typescript
	Title   string            // for messages: Go, Python, TypeScript/JavaScript
	Command []string          // the server's command line when --lsp does not name one
	IDs     map[string]string // file extension to LSP languageId
	Install string            // how to install the server, for the line said when there is none
	// Settle is how long the server must be quiet before a file's
	// diagnostics are taken as complete, for a server that publishes
	// them in parts without saying for which version: 0 for the others.
	Settle time.Duration
	// Probe, for a server that publishes nothing after a change that
	// leaves a file without problems, asks it whether the file at path
	// has none now (call makes one request of the server): an edit of a
	// file without problems that still has none is then done at once
	// instead of waiting for a publish that never comes. nil for servers
	// that publish after every change.
	Probe func(call caller, path string) (clean bool, err error)
}

// caller makes one request of a server and decodes its result.
type caller func(method string, params, result any) error

// tsserverClean asks typescript-language-server, which publishes a kind
// of problems (syntax, semantic, suggestion) only when it had some
// before or has some now, for each kind of path's problems through
// tsserver's synchronous requests: clean when every kind is empty.
func tsserverClean(call caller, path string) (bool, error) {
	for _, kind := range []string{"syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync"} {
		var res struct {
			Success bool              `json:"success"`
			Body    []json.RawMessage `json:"body"`
		}
		params := map[string]any{"command": "typescript.tsserverRequest", "arguments": []any{kind, map[string]any{"file": path}}}
		if err := call("workspace/executeCommand", params, &res); err != nil {
			return false, err
		}
		if !res.Success {
			return false, fmt.Errorf("%s: no answer", kind)
		}
		if len(res.Body) > 0 {
			return false, nil
		}
	}
	return true, nil
}

// Languages are the languages Boris starts servers for, by name.
func Languages() map[string]Language {
	return map[string]Language{
		"go": {
			Name: "go", Title: "Go", Command: []string{"gopls"},
			IDs:     map[string]string{".go": "go"},
			Install: "go install golang.org/x/tools/gopls@latest",
		},
		"python": {
			Name: "python", Title: "Python", Command: []string{"pyright-langserver", "--stdio"},
			IDs:     map[string]string{".py": "python", ".pyi": "python"},
			Install: "npm install -g pyright",
		},
		"typescript": {
			Name: "typescript", Title: "TypeScript/JavaScript", Command: []string{"typescript-language-server", "--stdio"},
			IDs: map[string]string{
				".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
				".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
			},
			Install: "npm install -g typescript-language-server typescript",
			// It publishes syntax, then semantic, then suggestion
			// diagnostics, each with the others as they were.
			Settle: 300 * time.Millisecond,
			// It says nothing when a file without problems still has none.
			Probe: tsserverClean,
		},
	}
}

// languageOf returns the language of path among langs, by extension.
func languageOf(langs map[string]Language, path string) (Language, string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, l := range langs {
		if id, ok := l.IDs[ext]; ok {
			return l, id, true
		}
	}
	return Language{}, "", false
}

// ParseCommands reads --lsp values, each LANG=COMMAND with COMMAND split
// at spaces ("python=pyright-langserver --stdio"), into argv by language.
func ParseCommands(values []string) (map[string][]string, error) {
	langs := Languages()
	out := map[string][]string{}
	for _, v := range values {
		name, command, ok := strings.Cut(v, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		argv := strings.Fields(command)
		if !ok || len(argv) == 0 {
			return nil, fmt.Errorf("--lsp %q: want LANG=COMMAND, such as go=/usr/local/bin/gopls", v)
		}
		if _, known := langs[name]; !known {
			return nil, fmt.Errorf("--lsp %q: unknown language %q (want go, python or typescript)", v, name)
		}
		out[name] = argv
	}
	return out, nil
}
