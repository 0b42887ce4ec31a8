package toolkit

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// describeInvalid says in an agent's terms why arguments failed schema
// validation. jsonschema's errors name schema locations ("validating root:
// validating /properties/path: type: ..."); the agent needs the argument
// and what to send instead: "unknown argument \"bogus\" (view takes path,
// view_range)", "missing required argument \"pattern\"", "path: got 3
// (integer), want string".
func describeInvalid(err error, schema *jsonschema.Schema) string {
	where, msg := schemaErrorParts(err)
	at := argumentName(where)
	sub := schemaAt(schema, where)
	switch {
	case strings.HasPrefix(msg, "unexpected additional properties "):
		names := quotedNames(msg)
		s := "unknown " + arguments(len(names)) + " " + strings.Join(quoteAll(names), ", ")
		if at != "" {
			s += " in " + at
		}
		if known := propertyNames(sub); len(known) > 0 {
			s += " (known: " + strings.Join(known, ", ") + ")"
		}
		return s
	case strings.HasPrefix(msg, "required: missing properties: "):
		names := quotedNames(msg)
		s := "missing required " + arguments(len(names)) + " " + strings.Join(quoteAll(names), ", ")
		if at != "" {
			s += " in " + at
		}
		return s
	}
	if m := typeErrorRe().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("got %s (%s), want %s", m[1], m[2], strings.Trim(m[3], `"`))
	} else if m := enumErrorRe().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("got %s, want one of %s", m[1], m[2])
	}
	if at == "" {
		return msg
	}
	return at + ": " + msg
}

// The validation errors' patterns, compiled the first time an argument
// is refused rather than at every core's start.
var (
	typeErrorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^type: (.*) has type "(\w+)", want (.*)$`) })
	enumErrorRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^enum: (.*) does not equal any of: (.*)$`) })
	quotedRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })
)

// schemaErrorParts splits a validation error into the schema location of
// its innermost "validating LOCATION" wrapping ("" for the root) and the
// innermost message.
func schemaErrorParts(err error) (where, msg string) {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return where, err.Error()
		}
		prefix := strings.TrimSuffix(err.Error(), ": "+inner.Error())
		if loc, ok := strings.CutPrefix(prefix, "validating "); ok && loc != "root" {
			where = loc
		}
		err = inner
	}
}

// argumentName turns a schema location such as
// /properties/edits/items/properties/oldText into the argument it
// describes, edits[].oldText; "" for the root.
func argumentName(where string) string {
	var sb strings.Builder
	parts := strings.Split(strings.TrimPrefix(where, "/"), "/")
	for i := 0; i < len(parts); i++ {
		switch {
		case parts[i] == "properties" && i+1 < len(parts):
			if sb.Len() > 0 {
				sb.WriteByte('.')
			}
			sb.WriteString(parts[i+1])
			i++
		case parts[i] == "items" || parts[i] == "prefixItems":
			sb.WriteString("[]")
		}
	}
	return sb.String()
}

// schemaAt follows a location of /properties/NAME and /items steps from
// schema; nil where it leads nowhere.
func schemaAt(schema *jsonschema.Schema, where string) *jsonschema.Schema {
	parts := strings.Split(strings.TrimPrefix(where, "/"), "/")
	for i := 0; schema != nil && i < len(parts); i++ {
		switch {
		case parts[i] == "":
		case parts[i] == "properties" && i+1 < len(parts):
			schema = schema.Properties[parts[i+1]]
			i++
		case parts[i] == "items":
			schema = schema.Items
		default:
			return nil
		}
	}
	return schema
}

// propertyNames lists schema's properties, sorted.
func propertyNames(schema *jsonschema.Schema) []string {
	if schema == nil {
		return nil
	}
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// quotedNames returns the Go-quoted strings in msg, unquoted and sorted:
// the validator names them in a map's order.
func quotedNames(msg string) []string {
	var names []string
	for _, q := range quotedRe().FindAllString(msg, -1) {
		if s, err := strconv.Unquote(q); err == nil {
			names = append(names, s)
		}
	}
	slices.Sort(names)
	return names
}

// arguments is the noun for n arguments.
func arguments(n int) string {
	if n == 1 {
		return "argument"
	}
	return "arguments"
}

// quoteAll quotes each name.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}
