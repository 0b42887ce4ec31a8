package toolkit

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// PlainOptional returns a copy of s in which every type list of the form
// ["null", X], what jsonschema.For infers for a pointer, slice or map
// field, is the plain type X. An optional parameter is then a property
// left out of "required", as clients with strict schema dialects expect
// (the Inspector's strict mode warns on type lists; Gemini's dialect
// rejects them). Boris still validates arguments against the inferred
// schema, so a client that sends null for an optional parameter is not
// refused.
func PlainOptional(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.CloneSchemas()
	plainTypes(c)
	return c
}

// plainTypes rewrites s and its subschemas in place.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 {
		if i := slices.Index(s.Types, "null"); i >= 0 {
			s.Type, s.Types = s.Types[1-i], nil
		}
	}
	for _, sub := range s.Properties {
		plainTypes(sub)
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Definitions, s.PatternProperties, s.DependentSchemas} {
		for _, sub := range m {
			plainTypes(sub)
		}
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf, s.PrefixItems, s.ItemsArray} {
		for _, sub := range list {
			plainTypes(sub)
		}
	}
	for _, sub := range []*jsonschema.Schema{s.Items, s.AdditionalProperties, s.AdditionalItems, s.Not, s.Contains} {
		plainTypes(sub)
	}
}
