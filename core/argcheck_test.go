package core

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mjkoo/boris/core/toolkit"
	boristools "github.com/mjkoo/boris/core/tools/boris"
	"github.com/mjkoo/boris/core/wire"
)

// toolSchemas are the input schemas of every tool Boris offers in any
// configuration, by name (the editor tool's under each version).
func toolSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	schemas := map[string]*jsonschema.Schema{}
	for _, cfg := range []*Config{
		{Toolset: "all", Checkpoints: "on", WorkspacesRoot: "x"},
		{Toolset: "all", AnthropicCompat: boristools.Compat20250124},
		{Toolset: "all", AnthropicCompat: boristools.Compat20250728},
	} {
		for _, tool := range (&boris{cfg: cfg}).offered() {
			if s := tool.Input(); s != nil {
				schemas[tool.Name+" "+string(cfg.AnthropicCompat)] = s
			}
		}
	}
	if len(schemas) < 30 {
		t.Fatalf("only %d tool schemas found", len(schemas))
	}
	return schemas
}

// TestArgCheckNeverAcceptsInvalid: for every tool's schema and for random
// ones, no arguments the scan accepts are refused by jsonschema's
// validation or by toolkit.DecodeArgs (a case variant of a property's name). Arguments are random objects of the schema's property
// names, their case variants, escaped spellings and strangers, holding
// values of every kind (1.0, 1e3, null, nested ones among them).
func TestArgCheckNeverAcceptsInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 23))
	schemas := toolSchemas(t)
	for i := range 400 {
		schemas[fmt.Sprintf("random %d", i)] = randomSchema(rng)
	}
	accepted := 0
	for name, s := range schemas {
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check := wire.NewArgCheck(s)
		for range 300 {
			raw := randomArgs(rng, s)
			if !check.Accepts(raw) {
				continue
			}
			accepted++
			var instance any
			if err := json.Unmarshal(raw, &instance); err != nil {
				t.Fatalf("%s: test made invalid JSON %s: %v", name, raw, err)
			}
			if err := resolved.Validate(instance); err != nil {
				sj, _ := json.Marshal(s)
				t.Fatalf("%s: the scan accepted %s, which the schema refuses: %v\nschema: %s", name, raw, err, sj)
			}
			if member, _ := toolkit.CaseVariant(s, instance); member != "" {
				t.Fatalf("%s: the scan accepted %s, whose %q toolkit.DecodeArgs refuses", name, raw, member)
			}
		}
	}
	if accepted < 1000 {
		t.Errorf("the scan accepted only %d argument objects: the test no longer exercises it", accepted)
	}
}

// TestArgCheckTakesCommonCalls: the arguments of the calls agents make
// most are the ones the scan vouches for, so they skip the validation.
func TestArgCheckTakesCommonCalls(t *testing.T) {
	schemas := toolSchemas(t)
	for _, tc := range []struct{ tool, args string }{
		{"view", `{"path": "main.go"}`},
		{"view", `{"path":"main.go","view_range":[1,20]}`}, // an array: validated fully
		{"bash", `{"command": "go test ./..."}`},
		{"read_text_file", `{"path":"/src/a.txt","head":20}`},
		{"read_text_file", `{"path":"/src/a.txt","unknownToServerFilesystem":1}`},
		{"str_replace", `{"path":"a.go","old_str":"x := 1","new_str":"x := 2"}`},
		{"grep", `{"pattern":"func main","path":"."}`},
	} {
		schema := schemas[tc.tool+" "]
		if schema == nil {
			t.Fatalf("no tool %s", tc.tool)
		}
		check := wire.NewArgCheck(schema)
		want := !strings.Contains(tc.args, "[")
		if got := check.Accepts([]byte(tc.args)); got != want {
			t.Errorf("%s %s: accepts = %v, want %v", tc.tool, tc.args, got, want)
		}
	}
}

// randomSchema returns an object schema of up to four properties of
// assorted types and constraints.
func randomSchema(rng *rand.Rand) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
	names := []string{"path", "head", "mode", "x", "Path", "é"}
	for range rng.IntN(5) {
		name := names[rng.IntN(len(names))]
		p := &jsonschema.Schema{}
		switch rng.IntN(9) {
		case 7:
			p.Types = []string{"null", "integer"}
		case 8:
			p.Types = []string{"null", "number"}
		case 0:
			p.Type = "string"
		case 1:
			p.Type = "integer"
		case 2:
			p.Type = "number"
		case 3:
			p.Type = "boolean"
		case 4:
			p.Types = []string{"string", "null"}
		case 5:
			p.Type = "array"
			p.Items = &jsonschema.Schema{Type: "integer"}
		case 6:
			p.Type = "object"
		}
		switch rng.IntN(6) {
		case 0:
			p.Enum = []any{"a", 1.0, true}
		case 1:
			p.Minimum = toolkit.Ptr(2.0)
		case 2:
			p.MaxLength = toolkit.Ptr(3)
		case 3:
			p.Description = "a property"
		}
		s.Properties[name] = p
		if rng.IntN(2) == 0 {
			s.Required = append(s.Required, name)
		}
	}
	switch rng.IntN(4) {
	case 0:
		s.AdditionalProperties = new(jsonschema.Schema)
		if err := json.Unmarshal([]byte("false"), s.AdditionalProperties); err != nil {
			panic(err)
		}
	case 1:
		s.AdditionalProperties = &jsonschema.Schema{}
	case 2:
		s.AdditionalProperties = &jsonschema.Schema{Type: "string"}
	}
	return s
}

// randomArgs returns a JSON object of up to five members, named mostly
// after s's properties. Half are near misses of valid arguments: every
// property present (required or not, at random) with a value of its
// type or one just beside it (1.5 for an integer, null, a number as a
// string).
func randomArgs(rng *rand.Rand, s *jsonschema.Schema) []byte {
	var b strings.Builder
	b.WriteString("{")
	sep := ""
	member := func(name, value string) {
		fmt.Fprintf(&b, "%s%q: %s", sep, name, value)
		sep = ","
	}
	if rng.IntN(2) == 0 {
		for name, p := range s.Properties {
			if rng.IntN(3) > 0 {
				member(name, nearValue(rng, p))
			}
		}
	} else {
		var names []string
		for n := range s.Properties {
			names = append(names, n, strings.ToUpper(n))
		}
		names = append(names, "other", `pa\u0074h`, "head", "")
		for range rng.IntN(6) {
			member(names[rng.IntN(len(names))], randomValue(rng))
		}
	}
	b.WriteString("}")
	return []byte(strings.ReplaceAll(b.String(), `\\u0074`, `\u0074`))
}

// nearValue returns a value of p's type, or one just beside it.
func nearValue(rng *rand.Rand, p *jsonschema.Schema) string {
	pools := map[string][]string{
		"string":  {`"a"`, `""`, `"abcd"`, `"\u00e9"`, `7`, `null`},
		"integer": {`0`, `7`, `-3`, `1.5`, `1.0`, `1e3`, `-0`, `"7"`, `null`},
		"number":  {`0.5`, `-2`, `1e-3`, `"1"`, `null`, `true`},
		"boolean": {`true`, `false`, `"true"`, `0`, `null`},
	}
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	for _, t := range types {
		if pool, ok := pools[t]; ok && rng.IntN(4) > 0 {
			return pool[rng.IntN(len(pool))]
		}
	}
	return randomValue(rng)
}

// randomValue returns a JSON value of any kind.
func randomValue(rng *rand.Rand) string {
	values := []string{`"a"`, `""`, `"a\"b"`, `"\u00e9"`, `0`, `7`, `-3`, `1.0`, `1.5`, `1e3`, `-0`,
		`12345678901234567890`, `true`, `false`, `null`, `[]`, `[1,2]`, `["a"]`, `{}`, `{"a":1}`, `"abcd"`}
	return values[rng.IntN(len(values))]
}
