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
	kindOutput = "out:"   // advertised output: PlainOptional(For[Out]), tuned (OutputDef, TunedOutputDef)
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

// advertised is the schema a tool advertises from src: the generated
// JSON, which the SDK checks and lists without encoding a schema, or else
// the inferred schema.
func advertised(src SchemaSource) any {
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

// outputSource is Out's generated output schema, tuned by tune if it is
// not nil (its name is part of the generated key).
func outputSource[Out any](tune *OutputTune) SchemaSource {
	src := SchemaSource{Key: kindOutput + typeKey[Out](), Infer: inferOutput[Out], JSON: true}
	if tune != nil {
		src.Key += "+" + tune.Name
		src.Infer = func() *jsonschema.Schema {
			s := inferOutput[Out]()
			tune.Tune(s)
			return s
		}
	}
	return src
}

// OutputTune is a change a toolset makes to the output schemas its types
// infer, such as enums struct tags cannot state; Name tells tuned schemas
// from untuned ones of the same type in the generated file.
type OutputTune struct {
	Name string
	Tune func(*jsonschema.Schema)
}

// Def is how a tool's definition is made when it is registered (NewFrom),
// and the output type whose schema it holds, if any.
type Def struct {
	make func() *mcp.Tool
	out  []SchemaSource
}

// Lazy is the definition f makes when the tool is registered.
func Lazy(f func() *mcp.Tool) Def { return Def{make: f} }

// OutputDef is t with Out's output schema (generated, as the server lists
// it), made when the tool is registered.
func OutputDef[Out any](t *mcp.Tool) Def { return outputDef[Out](t, nil) }

// TunedOutputDef is OutputDef with Out's output schema tuned by tune.
func TunedOutputDef[Out any](t *mcp.Tool, tune OutputTune) Def { return outputDef[Out](t, &tune) }

// outputDef is t with Out's output schema tuned by tune, if not nil.
func outputDef[Out any](t *mcp.Tool, tune *OutputTune) Def {
	src := outputSource[Out](tune)
	return Def{out: []SchemaSource{src}, make: func() *mcp.Tool {
		out := *t
		out.OutputSchema = advertised(src)
		return &out
	}}
}

// SchemaSources lists the generated schemas t's registration reads.
func (t Tool) SchemaSources() []SchemaSource { return t.sources }
