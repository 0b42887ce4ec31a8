package wire

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// ArgCheck holds a tool's input schema as far as it can be checked by
// scanning the arguments' bytes: an object whose properties are each a
// string, a boolean, an integer or a number, with nothing else to check
// about them. Nearly every call's arguments are of that kind, and for
// them the scan stands in for jsonschema's validation, which decodes the
// arguments once more and walks them (about 15 µs of a 150 µs small read,
// most of it in growing the call's stack). Arguments it cannot vouch for
// (anything else, or a property with an enum, a bound, a pattern) go
// through the full validation as before: the scan only ever says "valid"
// or "not sure". TestArgCheckNeverAcceptsInvalid holds it to that.
type ArgCheck struct {
	kinds    map[string]kinds // property → the kinds its value may be; 0: check fully
	required []string
	closed   bool // additionalProperties is false
}

// kinds is a set of JSON value kinds a property's type allows.
type kinds uint8

const (
	kString kinds = 1 << iota
	kBoolean
	kInteger
	kNumber
	kNull
)

// kindOfType maps a JSON Schema type name to its kind.
var kindOfType = map[string]kinds{"string": kString, "boolean": kBoolean, "integer": kInteger, "number": kNumber, "null": kNull}

// schemaKeys are the members a property's schema may have for the scan to
// check it: its type and annotations that validate nothing.
var schemaKeys = map[string]bool{"type": true, "description": true, "title": true, "default": true,
	"examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// NewArgCheck returns the scan for schema, or nil if its top level holds
// more than an object's properties, required names and additionalProperties
// false or absent (then every call is validated fully).
func NewArgCheck(schema *jsonschema.Schema) *ArgCheck {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil || string(top["type"]) != `"object"` {
		return nil
	}
	c := &ArgCheck{kinds: map[string]kinds{}}
	for key, val := range top {
		switch key {
		case "type", "description", "title", "$schema", "$comment":
		case "required":
			if json.Unmarshal(val, &c.required) != nil {
				return nil
			}
		case "additionalProperties":
			switch string(val) {
			case "false":
				c.closed = true
			case "true", "{}":
			default:
				return nil
			}
		case "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(val, &props) != nil {
				return nil
			}
			for name, p := range props {
				c.kinds[name] = propertyKind(p)
			}
		default:
			return nil
		}
	}
	for _, name := range c.required {
		if _, ok := c.kinds[name]; !ok {
			return nil // required but not described: leave it to the validator
		}
	}
	return c
}

// propertyKind is the kinds a property's value may be, or 0 if its schema
// asks more than a type (or a type the scan does not check).
func propertyKind(p map[string]json.RawMessage) kinds {
	for key := range p {
		if !schemaKeys[key] {
			return 0
		}
	}
	var names []string
	if json.Unmarshal(p["type"], &names) != nil {
		var one string
		if json.Unmarshal(p["type"], &one) != nil {
			return 0
		}
		names = []string{one}
	}
	var k kinds
	for _, n := range names {
		if kindOfType[n] == 0 {
			return 0
		}
		k |= kindOfType[n]
	}
	return k
}

// accepts reports whether raw, valid JSON, is certainly valid against the
// schema: an object without a member twice, each member a property the
// scan checks (or any name but another case of a property's, when the
// schema is open) holding a value of its kind, and every required
// property present.
func (c *ArgCheck) Accepts(raw []byte) bool {
	if c == nil {
		return false
	}
	seen := make([]string, 0, 8)
	whole := plainMembers(raw, func(key, val []byte) bool {
		name := string(key)
		if slices.Contains(seen, name) {
			return false
		}
		seen = append(seen, name)
		kind, known := c.kinds[name]
		if known {
			return valueOfKind(val, kind)
		}
		return !c.closed && !c.caseOfProperty(name)
	})
	if !whole {
		return false // an escaped name among them: let the validator decode it
	}
	for _, r := range c.required {
		if !slices.Contains(seen, r) {
			return false
		}
	}
	return true
}

// caseOfProperty reports whether name differs from a property's name only
// in case: toolkit.DecodeArgs refuses such a member.
func (c *ArgCheck) caseOfProperty(name string) bool {
	for p := range c.kinds {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}

// valueOfKind reports whether the JSON value v is certainly of one of k:
// an integer only as plain digits (1.0 and 1e3 are integers too, but are
// left to the validator).
func valueOfKind(v []byte, k kinds) bool {
	if len(v) == 0 {
		return false
	}
	switch {
	case v[0] == '"':
		return k&kString != 0
	case string(v) == "true" || string(v) == "false":
		return k&kBoolean != 0
	case string(v) == "null":
		return k&kNull != 0
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		return k&kNumber != 0 || (k&kInteger != 0 && plainInteger(v))
	}
	return false
}

// plainInteger reports whether the number v is written as digits only.
func plainInteger(v []byte) bool {
	if v[0] == '-' {
		v = v[1:]
	}
	for _, d := range v {
		if d < '0' || d > '9' {
			return false
		}
	}
	return len(v) > 0
}
