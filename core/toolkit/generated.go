package toolkit

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool definitions are built once, at build time: every schema Boris
// would otherwise infer by reflection in each new session (jsonschema.For,
// about 15 ms of CPU per core) is generated into schemas_gen.go by
// `go generate ./core/` (TestGeneratedSchemas in package core, which make
// test runs to check that the file is current): the schemas a tool
// advertises as it is, as JSON (the server lists them without encoding a
// schema), the others as Go literals. A session only allocates them. A schema the file lacks (a tool added without running
// go generate) is inferred as before, so nothing breaks; the test says
// the file is stale.

// Schema kinds, the prefixes of generated keys.
const (
	kindInput  = "in:"    // validated against: For[In], tuned (MustSchema)
	kindPlain  = "plain:" // advertised: PlainOptional of the input schema
	kindOutput = "out:"   // advertised output: PlainOptional(For[Out]) (WithOutput)
)

// SchemaSource is one generated schema: its key, how it is inferred, and
// whether it is generated as JSON (what the server sends as is) rather
// than as a jsonschema.Schema (what Boris reads or changes).
type SchemaSource struct {
	Key   string
	Infer func() *jsonschema.Schema
	JSON  bool
}

// typeKey names T for generated keys: its package path and name.
func typeKey[T any]() string {
	t := reflect.TypeFor[T]()
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

// schemaOf is the generated schema of key, or infer's.
func schemaOf(key string, infer func() *jsonschema.Schema) *jsonschema.Schema {
	if s := generatedSchema(key); s != nil {
		return s
	}
	return infer()
}

// advertisedInput is the input schema a tool of In advertises: the
// generated JSON, which the SDK checks and lists without encoding a
// schema, or else PlainOptional of the inferred schema.
func advertisedInput(src SchemaSource) any {
	if raw := generatedJSON(src.Key); raw != nil {
		return raw
	}
	return src.Infer()
}

// inferInput derives In's input schema, tuned if In is a SchemaTuner.
func inferInput[In any]() *jsonschema.Schema {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("schema for %s: %v", typeKey[In](), err)) // a programming error
	}
	if tuner, ok := any(new(In)).(SchemaTuner); ok {
		tuner.TuneSchema(schema)
	}
	return schema
}

// inferOutput derives Out's advertised output schema.
func inferOutput[Out any]() *jsonschema.Schema {
	schema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("output schema for %s: %v", typeKey[Out](), err))
	}
	return PlainOptional(schema) // its lists are never null
}

// inputSources are In's generated schemas: validated and advertised.
func inputSources[In any]() []SchemaSource {
	key := typeKey[In]()
	return []SchemaSource{
		{Key: kindInput + key, Infer: inferInput[In]},
		{Key: kindPlain + key, Infer: func() *jsonschema.Schema { return PlainOptional(inferInput[In]()) }, JSON: true},
	}
}

// outputSource is Out's generated output schema.
func outputSource[Out any]() SchemaSource {
	return SchemaSource{Key: kindOutput + typeKey[Out](), Infer: inferOutput[Out]}
}

// Def is how a tool's definition is made when it is registered (NewFrom),
// and the output type whose schema it holds, if any.
type Def struct {
	make func() *mcp.Tool
	out  []SchemaSource
}

// Lazy is the definition f makes when the tool is registered.
func Lazy(f func() *mcp.Tool) Def { return Def{make: f} }

// OutputDef is WithOutput[Out](t), made when the tool is registered, then
// passed to each tune.
func OutputDef[Out any](t *mcp.Tool, tune ...func(*mcp.Tool)) Def {
	return Def{out: []SchemaSource{outputSource[Out]()}, make: func() *mcp.Tool {
		out := WithOutput[Out](t)
		for _, f := range tune {
			f(out)
		}
		return out
	}}
}

// SchemaSources lists the generated schemas t's registration reads.
func (t Tool) SchemaSources() []SchemaSource { return t.sources }
