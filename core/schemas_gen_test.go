package core

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mjkoo/boris/core/toolkit/schemagen"
	boristools "github.com/mjkoo/boris/core/tools/boris"
)

//go:generate go test . -count=1 -run ^TestGeneratedSchemas$ -update-schemas

// updateSchemas makes TestGeneratedSchemas write the file rather than
// compare it (go generate ./core/).
var updateSchemas = flag.Bool("update-schemas", false, "write core/toolkit/schemas_gen.go from the tools' parameter and result types")

// generatedSchemasFile is what go generate writes, the package's own.
var generatedSchemasFile = filepath.Join("toolkit", "schemas_gen.go")

// generatedSchemas infers, by reflection, every schema the tools of every
// configuration read when registered: the ones the generated file must
// hold.
func generatedSchemas(t *testing.T) (literals, asJSON map[string]*jsonschema.Schema) {
	t.Helper()
	literals, asJSON = map[string]*jsonschema.Schema{}, map[string]*jsonschema.Schema{}
	for _, cfg := range []*Config{
		{Toolset: "all", Checkpoints: "on", WorkspacesRoot: "x"},
		{Toolset: "all", Checkpoints: "on", ReadOnly: true},
		{Toolset: "all", AnthropicCompat: boristools.Compat20250124},
		{Toolset: "all", AnthropicCompat: boristools.Compat20250728},
		{Toolset: "filesystem", WorkspacesRoot: "x"},
	} {
		for _, tool := range (&boris{cfg: cfg}).offered() {
			for _, src := range tool.SchemaSources() {
				if src.JSON {
					asJSON[src.Key] = src.Infer()
				} else {
					literals[src.Key] = src.Infer()
				}
			}
		}
	}
	if len(literals) < 20 || len(asJSON) < 20 {
		t.Fatalf("only %d schemas and %d encoded ones found across the configurations", len(literals), len(asJSON))
	}
	return literals, asJSON
}

// TestGeneratedSchemas: core/toolkit/schemas_gen.go holds exactly the
// schemas the tools' types infer today, so a core that allocates them
// advertises and validates what reflection would derive. When it fails,
// run go generate ./core/ and commit the file.
func TestGeneratedSchemas(t *testing.T) {
	literals, asJSON := generatedSchemas(t)
	want, err := schemagen.Source("toolkit", literals, asJSON)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSchemas {
		if err := os.WriteFile(generatedSchemasFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(generatedSchemasFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: the tools' types infer other schemas; run go generate ./core/ and commit it", generatedSchemasFile)
	}
}
