package toolkit

import (
	"context"
	"slices"
	"sync"
)

// Edits collects the files one tool call is about to write, each with its
// content before the write: what the diagnostics after an edit compare
// against (see package lsp). The composition root puts one in the call's
// context (WithEdits); a tool says, just before it writes a file, that it
// is about to (Editing). Without one in the context Editing does nothing.
type Edits struct {
	want func(abs string) bool            // which files to keep: those a language server checks
	read func(abs string) ([]byte, error) // reads a file as the tools may
	mu   sync.Mutex
	list []Edited
}

// Edited is one file a call wrote, with its content before.
type Edited struct {
	Path    string
	Before  []byte
	Existed bool // false: the call created it
}

type editsKey struct{}

// WithEdits returns ctx carrying a new Edits that keeps the files want
// accepts, reading their content before with read.
func WithEdits(ctx context.Context, want func(abs string) bool, read func(abs string) ([]byte, error)) (context.Context, *Edits) {
	e := &Edits{want: want, read: read}
	return context.WithValue(ctx, editsKey{}, e), e
}

// Editing notes, in the Edits ctx carries if any, that the call is about
// to write abs, keeping its content as it is now. Only the first write
// of a file in a call counts: its "before" is the call's.
func Editing(ctx context.Context, abs string) {
	e, _ := ctx.Value(editsKey{}).(*Edits)
	if e == nil || !e.want(abs) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if slices.ContainsFunc(e.list, func(f Edited) bool { return f.Path == abs }) {
		return
	}
	before, err := e.read(abs)
	e.list = append(e.list, Edited{Path: abs, Before: before, Existed: err == nil})
}

// Files returns the files noted, in the order they were first written.
func (e *Edits) Files() []Edited {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}
