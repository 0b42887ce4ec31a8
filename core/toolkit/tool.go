package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/wire"
	"github.com/mjkoo/boris/internal/jsonscan"
)

// Tool is one tool a toolset offers: its name, the toolset it belongs to,
// what it may do, and how it is registered on a server. A toolset's
// package builds its tools with New (or Raw) from its definitions and
// handlers; the composition root chooses which to register from the
// configuration alone (Filter) and registers them (Register).
type Tool struct {
	Name    string
	Toolset ID   // the toolset that offers it, named as its package: boris, filesystem, checkpoints, tracking, workspaces, extensions, diagnostics
	Writes  bool // changes files or shared state: --read-only leaves it out
	Exec    bool // runs commands: only registered with bash
	add     func(s *mcp.Server, around Around)
	define  func() *mcp.Tool          // the definition add registers; nil for Raw
	input   func() *jsonschema.Schema // the schema arguments are validated against; nil for Raw
	sources []SchemaSource            // the generated schemas its registration reads
}

// Handler is a tool's logic: a result, or an error that becomes an
// isError result with its code (docs/reference/core.md#errors).
type Handler[In any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, error)

// Around is what the composition root does around every call of a tool
// built with New: run reads the arguments and runs the handler, giving
// its result or the error's (never nil), with the context it is given
// (which may carry more than the call's, such as Edits).
type Around func(ctx context.Context, tool string, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult

// New builds a tool whose input schema is derived from In. Arguments are
// validated here rather than by the SDK so that malformed input gets the
// same "[INVALID_INPUT] ..." form as every other tool error. A definition
// that sets its InputSchema advertises that one instead (a narrower view of
// In's, such as a read-only command enum); arguments are still validated
// against In's. Advertised schemas state optional parameters as plain
// optional properties (PlainOptional).
func New[In any](def *mcp.Tool, h Handler[In]) Tool {
	return NewFrom(def.Name, Lazy(func() *mcp.Tool { return def }), h)
}

// NewFrom is New with a definition made only when the tool is registered:
// a definition that costs work (a schema parsed from JSON) is not paid for
// by a core that only says which tools it has. The schemas are generated
// (see Def): registering allocates them, the schema arguments are
// validated against is made on the tool's first call.
func NewFrom[In any](name string, def Def, h Handler[In]) Tool {
	input := func() *jsonschema.Schema { return MustSchema[In](name) }
	sources := append(inputSources[In](), def.out...)
	define := func() *mcp.Tool {
		tool := *def.make()
		switch in := tool.InputSchema.(type) {
		case nil:
			tool.InputSchema = advertised(sources[1])
		case *jsonschema.Schema:
			tool.InputSchema = PlainOptional(in)
		}
		return &tool
	}
	return Tool{Name: name, input: input, sources: sources, define: define, add: func(s *mcp.Server, around Around) {
		schema := sync.OnceValue(input)
		// Resolved and checked on the tool's first call, not at registration.
		resolved := sync.OnceValue(func() *jsonschema.Resolved {
			r, err := schema().Resolve(nil)
			if err != nil {
				panic(fmt.Sprintf("resolve schema for tool %s: %v", name, err)) // a programming error
			}
			return r
		})
		check := sync.OnceValue(func() *wire.ArgCheck { return wire.NewArgCheck(schema()) })
		s.AddTool(define(), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return around(ctx, name, func(ctx context.Context) *mcp.CallToolResult {
				res, err := call(ctx, req, h, resolved(), check())
				if err != nil {
					return ErrorResult(err)
				}
				CapResult(res)
				return res
			}), nil
		})
	}}
}

// call decodes a call's arguments and runs h with them.
func call[In any](ctx context.Context, req *mcp.CallToolRequest, h Handler[In], resolved *jsonschema.Resolved, check *wire.ArgCheck) (*mcp.CallToolResult, error) {
	in, err := DecodeArgs[In](req.Params.Arguments, resolved, check)
	if err != nil {
		return nil, err
	}
	return h(ctx, req, in)
}

// Raw builds a tool that registers itself with add, such as an extension
// tool, whose schema is not a Go type and whose handler reads its
// arguments itself. No Around applies to it.
func Raw(name string, add func(s *mcp.Server)) Tool {
	return Tool{Name: name, add: func(s *mcp.Server, _ Around) { add(s) }}
}

// Writing marks t as one that changes files or shared state.
func (t Tool) Writing() Tool {
	t.Writes = true
	return t
}

// Running marks t as one that runs commands.
func (t Tool) Running() Tool {
	t.Exec = true
	return t
}

// Input is the schema t's arguments are validated against, derived from
// its parameter type; nil for a Raw tool.
func (t Tool) Input() *jsonschema.Schema {
	if t.input == nil {
		return nil
	}
	return t.input()
}

// Register adds t to s, with around around each call.
func (t Tool) Register(s *mcp.Server, around Around) { t.add(s, around) }

// Definition is the definition Register gives the server, as tools/list
// lists it, made anew; nil for a Raw tool, whose definition only its
// registration knows.
func (t Tool) Definition() *mcp.Tool {
	if t.define == nil {
		return nil
	}
	return t.define()
}

// Set names tools' toolset: a toolset's package returns Set(ID, ...).
func Set(toolset ID, tools ...Tool) []Tool {
	for i := range tools {
		tools[i].Toolset = toolset
	}
	return tools
}

// SchemaTuner is implemented by parameter structs whose schema needs more
// than struct tags can say, such as an enum.
type SchemaTuner interface {
	TuneSchema(*jsonschema.Schema)
}

// MustSchema returns In's input schema, tuned if In is a SchemaTuner: a
// new copy of the generated one (see Def), derived by reflection where
// none was generated. tool names the tool for the panic of a type
// jsonschema cannot describe, a programming error.
func MustSchema[In any](tool string) *jsonschema.Schema {
	key := kindInput + typeKey[In]()
	if s := generatedSchema(key); s != nil {
		return s
	}
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("tool %s: %v", tool, r))
		}
	}()
	return inferInput[In]()
}

// Structured is a result with text for reading and out as
// structuredContent.
func Structured(text string, out any) *mcp.CallToolResult {
	res := TextResult(text)
	res.StructuredContent = out
	return res
}

// Ptr returns a pointer to v, for optional annotation fields.
func Ptr[T any](v T) *T { return &v }

// DecodeArgs validates raw arguments against the tool's schema and decodes
// them. The decoder matches member names exactly, as the validator (and
// go-sdk's typed handlers) do: encoding/json would also read "PATH" into
// the field of "path", so arguments could be validated under one name and
// used under another. A member whose name differs from a property's only
// in case is refused outright, naming it: in a schema open to other members
// (the filesystem toolset's) it would otherwise be silently ignored.
func DecodeArgs[In any](raw json.RawMessage, resolved *jsonschema.Resolved, check *wire.ArgCheck) (In, error) {
	var in In
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	// Arguments the scan vouches for are decoded once, not validated.
	if err := jsonscan.Unmarshal(raw, &in); err == nil && check.Accepts(raw) {
		return in, nil
	}
	in = *new(In)
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return in, Fail(InvalidInput, "arguments are not valid JSON: %v", err)
	}
	if member, property := CaseVariant(resolved.Schema(), instance); member != "" {
		return in, Fail(InvalidInput, "invalid arguments: unknown argument %q (argument names are case-sensitive: did you mean %q?)", member, property)
	}
	if err := resolved.Validate(instance); err != nil {
		return in, Fail(InvalidInput, "invalid arguments: %s", describeInvalid(err, resolved.Schema()))
	}
	if err := jsonscan.Unmarshal(raw, &in); err != nil {
		return in, Fail(InvalidInput, "invalid arguments: %v", err)
	}
	return in, nil
}

// Decode decodes raw arguments for a tool whose parameters are In as a
// tool built by New does, deriving the schema on every call: for tests
// and one-off callers.
func Decode[In any](raw json.RawMessage) (In, error) {
	schema := MustSchema[In]("decode")
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return *new(In), err
	}
	return DecodeArgs[In](raw, resolved, wire.NewArgCheck(schema))
}

// CaseVariant finds, in a decoded instance of schema, a member that is not
// one of the properties its object names but differs from one of them only
// in case (strings.EqualFold), and returns its path (dotted, from the top)
// and the property's name; "" if there is none. Objects nested in
// properties and array items are searched too.
func CaseVariant(schema *jsonschema.Schema, v any) (member, property string) {
	if schema == nil {
		return "", ""
	}
	switch v := v.(type) {
	case map[string]any:
		for _, name := range slices.Sorted(maps.Keys(v)) {
			if sub, ok := schema.Properties[name]; ok {
				if m, p := CaseVariant(sub, v[name]); m != "" {
					return name + "." + m, p
				}
				continue
			}
			for known := range schema.Properties {
				if strings.EqualFold(name, known) {
					return name, known
				}
			}
		}
	case []any:
		for i, item := range v {
			if m, p := CaseVariant(schema.Items, item); m != "" {
				return fmt.Sprintf("%d.%s", i, m), p
			}
		}
	}
	return "", ""
}
