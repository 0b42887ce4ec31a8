// Package flagenv provides command-line configuration for Boris's binaries:
// every setting is a struct field that is both a flag and an environment
// variable, with the precedence flag > environment > default.
//
// A field is described by struct tags:
//
//	Workdir string `flag:"workdir" env:"BORIS_WORKDIR" envDefault:"." help:"initial working directory"`
//
// Environment variables and defaults are read by github.com/caarlos0/env;
// flags are then applied on top with the standard flag package. Slice fields
// are repeatable flags that also accept comma-separated values; the first
// flag occurrence replaces what the environment gave. A comma inside braces
// belongs to the value ("**/{.env,secrets}" is one glob), as does one after
// a backslash (SplitList). A slice field tagged split:"env" takes each flag
// value whole (a token may hold a comma); only its environment variable,
// which holds the whole list, is split.
//
// Tags bound a value, and Parse checks the final one, naming the flag or
// the environment variable it came from:
//
//	min:"1" max:"600"        an integer field's range (either may be left out)
//	oneof:"text,json"        a string field's choices
//	want:"seconds, 1 to 600" what the error says is accepted, instead of the
//	                         text derived from the tags above
//
// A default that is not a value (a search, another setting's value) is
// described for --help by helpDefault:"next to the binary, then $PATH";
// without it, a setting with no envDefault shows "default none".
package flagenv

import (
	"cmp"
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caarlos0/env/v11"
)

// ErrHelp is returned by Parse when -h or --help was given; the usage text
// has already been written.
var ErrHelp = flag.ErrHelp

// UsageError is a bad setting: it names the setting and what is accepted.
// Binaries exit with status 2 on it.
type UsageError struct {
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

// Command describes a binary for its usage text.
type Command struct {
	Name     string // binary name, e.g. "boris"
	Synopsis string // one line shown under the usage line
	Usage    string // usage line after the name, e.g. "[flags]"
}

// Parse fills cfg (a pointer to a tagged struct) from environ (KEY=VALUE
// pairs, as os.Environ returns) and args. It returns the arguments left after
// the flags. Usage text for --help goes to out.
func Parse(cmd Command, cfg any, args, environ []string, out io.Writer) ([]string, error) {
	envMap := env.ToMap(environ)
	if err := env.ParseWithOptions(cfg, env.Options{Environment: envMap}); err != nil {
		return nil, envError(cfg, err, envMap)
	}
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fields := bind(fs, cfg)
	if err := splitEnvLists(fields, envMap); err != nil {
		return nil, err
	}
	// The flag package calls Usage on every parse error; help text belongs
	// only to --help, and never on a protocol stream.
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeUsage(out, cmd, fields)
			return nil, ErrHelp
		}
		return nil, &UsageError{Msg: flagMessage(err)}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := checkBounds(fields, set, envMap); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

// flagRewrites reword the flag package's errors in the --flag spelling the
// help text uses (the package itself prints one dash).
// They are compiled when a flag is refused, not at every start.
var flagRewrites = sync.OnceValue(func() []flagRewrite {
	return []flagRewrite{
		{regexp.MustCompile(`^flag provided but not defined: -+(.*)$`), "unknown flag --$1 (see --help)"},
		{regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:\s]+)`), "invalid value $1 for --$2"},
		{regexp.MustCompile(`^invalid boolean flag -*([^:\s]+)`), "invalid value for --$1"},
		{regexp.MustCompile(`^flag needs an argument: -+(.*)$`), "--$1 needs a value"},
	}
})

// flagRewrite rewords the flag package's errors that re matches.
type flagRewrite struct {
	re   *regexp.Regexp
	repl string
}

// flagMessage rewords a flag package error; see flagRewrites.
func flagMessage(err error) string {
	msg := err.Error()
	for _, r := range flagRewrites() {
		if r.re.MatchString(msg) {
			return r.re.ReplaceAllString(msg, r.repl)
		}
	}
	return msg
}

// field is one setting: its flag, env twin, default and help, and the
// bounds its final value must keep.
type field struct {
	flag, env, def, help string
	value                flag.Value
	isBool               bool
	v                    reflect.Value
	bounds               bounds
}

// bind registers a flag for every tagged field of cfg, pointing at the field
// itself so that a flag overwrites what the environment put there.
func bind(fs *flag.FlagSet, cfg any) []field {
	return bindStruct(fs, reflect.ValueOf(cfg).Elem())
}

// bindStruct binds the fields of the struct v, and those of the structs it
// embeds, where they are.
func bindStruct(fs *flag.FlagSet, v reflect.Value) []field {
	t := v.Type()
	var fields []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			fields = append(fields, bindStruct(fs, v.Field(i))...)
			continue
		}
		tags := parseTags(sf.Tag)
		name := tags.get("flag")
		if name == "" {
			continue
		}
		f := field{
			flag:  name,
			env:   tags.get("env"),
			def:   cmp.Or(tags.get("helpDefault"), tags.get("envDefault")),
			help:  tags.get("help"),
			value: newValue(v.Field(i)),
		}
		if sv, ok := f.value.(*sliceValue); ok {
			sv.whole = tags.get("split") == "env"
		}
		f.isBool = sf.Type.Kind() == reflect.Bool || isBoolFlag(f.value)
		f.v, f.bounds = v.Field(i), boundsOf(sf.Name, tags)
		fs.Var(f.value, name, f.help)
		fields = append(fields, f)
	}
	return fields
}

// envError turns the env library's error into a UsageError naming the
// variable, its value and what is accepted, in the words a bad flag gets: a
// bad BORIS_TIMEOUT reads like a bad --timeout.
func envError(cfg any, err error, environ map[string]string) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) || len(agg.Errors) == 0 {
		return &UsageError{Msg: err.Error()}
	}
	var pe env.ParseError
	if !errors.As(agg.Errors[0], &pe) {
		return &UsageError{Msg: agg.Errors[0].Error()}
	}
	sf, _ := reflect.TypeOf(cfg).Elem().FieldByName(pe.Name)
	name := sf.Tag.Get("env")
	raw := environ[name]
	// The field's own flag.Value says what it accepts; the env library's
	// error ("invalid syntax") does not.
	why := unwrapAll(pe.Err)
	if serr := newValue(reflect.New(sf.Type).Elem()).Set(raw); serr != nil {
		why = serr
	}
	return &UsageError{Msg: fmt.Sprintf("invalid value %q for %s: %v", raw, name, why)}
}

func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// writeUsage prints the synopsis and one entry per setting with its env
// name and default.
func writeUsage(out io.Writer, cmd Command, fields []field) {
	fmt.Fprintf(out, "Usage: %s %s\n\n%s\n\nSettings (flag, environment variable, default):\n", cmd.Name, cmd.Usage, cmd.Synopsis)
	for _, f := range fields {
		arg := " value"
		if f.isBool {
			arg = ""
		}
		fmt.Fprintf(out, "  --%s%s\n", f.flag, arg)
		fmt.Fprintf(out, "        %s\n", f.help)
		def := f.def
		if def == "" {
			def = "none"
		}
		if f.env != "" {
			fmt.Fprintf(out, "        env %s, default %s\n", f.env, def)
		}
	}
}

// newValue adapts a struct field to flag.Value.
func newValue(v reflect.Value) flag.Value {
	if tu, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return &textValue{v: v, tu: tu}
	}
	if v.Type() == reflect.TypeFor[time.Duration]() {
		return &durationValue{v: v}
	}
	switch v.Kind() {
	case reflect.Bool:
		return &boolValue{v: v}
	case reflect.Slice:
		return &sliceValue{v: v}
	default:
		return &scalarValue{v: v}
	}
}

type textValue struct {
	v  reflect.Value
	tu encoding.TextUnmarshaler
}

func (t *textValue) Set(s string) error { return t.tu.UnmarshalText([]byte(s)) }
func (t *textValue) String() string {
	if t == nil || !t.v.IsValid() {
		return ""
	}
	return fmt.Sprint(t.v.Interface())
}

// IsBoolFlag passes on the field type's own IsBoolFlag: a setting whose
// value is optional on the command line (--flag alone means "true", as
// for a boolean; --flag=VALUE gives another).
func (t *textValue) IsBoolFlag() bool { return isBoolFlag(t.tu) }

// isBoolFlag reports whether v may stand alone on the command line.
func isBoolFlag(v any) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

type durationValue struct{ v reflect.Value }

func (d *durationValue) Set(s string) error {
	x, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 30s, 5m or 12h")
	}
	d.v.SetInt(int64(x))
	return nil
}
func (d *durationValue) String() string {
	if d == nil || !d.v.IsValid() {
		return ""
	}
	return time.Duration(d.v.Int()).String()
}

type boolValue struct{ v reflect.Value }

func (b *boolValue) IsBoolFlag() bool { return true }
func (b *boolValue) Set(s string) error {
	x, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	b.v.SetBool(x)
	return nil
}
func (b *boolValue) String() string {
	if b == nil || !b.v.IsValid() {
		return ""
	}
	return strconv.FormatBool(b.v.Bool())
}

type scalarValue struct{ v reflect.Value }

func (s *scalarValue) Set(x string) error {
	switch s.v.Kind() {
	case reflect.String:
		s.v.SetString(x)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return errors.New("want an integer")
		}
		s.v.SetInt(n)
	default:
		return fmt.Errorf("unsupported setting type %s", s.v.Type())
	}
	return nil
}
func (s *scalarValue) String() string {
	if s == nil || !s.v.IsValid() {
		return ""
	}
	return fmt.Sprint(s.v.Interface())
}

// sliceValue is a repeatable string flag. The first use on the command line
// replaces the environment's list (flag beats env); later uses append.
// Each use is a comma-separated list (SplitList) unless whole.
type sliceValue struct {
	v       reflect.Value
	touched bool
	whole   bool // a flag value is one item, commas and all
}

func (s *sliceValue) Set(x string) error {
	parts := []string{strings.TrimSpace(x)}
	if !s.whole {
		var err error
		if parts, err = SplitList(x); err != nil {
			return err
		}
	}
	if !s.touched {
		s.v.Set(reflect.MakeSlice(s.v.Type(), 0, 1))
		s.touched = true
	}
	for _, part := range parts {
		if part != "" {
			s.v.Set(reflect.Append(s.v, reflect.ValueOf(part)))
		}
	}
	return nil
}

// SplitList splits a list setting's value at its commas, except a comma
// inside braces, which belongs to a glob's alternatives ("**/{.env,secrets}"
// is one item), and one after a backslash. Items are trimmed of spaces and
// empty ones dropped. Unbalanced braces are an error saying so: splitting
// such a value anyway would turn one pattern into two broken ones.
func SplitList(s string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the next byte is literal
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("a } at byte %d closes no {: commas outside braces separate items, so a brace pattern must be whole", i+1)
			}
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("a { is never closed: commas outside braces separate items, so a brace pattern must be whole")
	}
	items = append(items, strings.TrimSpace(s[start:]))
	return slices.DeleteFunc(items, func(it string) bool { return it == "" }), nil
}

// splitEnvLists sets every list field whose environment variable is set
// from SplitList of its value (the env library splits at every comma,
// braces or not). A split:"env" field's variable is split at every comma:
// its items (tokens, file names) are no patterns, and a brace in one is
// just a character.
func splitEnvLists(fields []field, envMap map[string]string) error {
	for _, f := range fields {
		raw, set := envMap[f.env]
		sv, isList := f.value.(*sliceValue)
		if f.env == "" || !set || !isList {
			continue
		}
		items, err := SplitList(raw)
		if sv.whole {
			items, err = strings.Split(raw, ","), nil
			for i := range items {
				items[i] = strings.TrimSpace(items[i])
			}
			items = slices.DeleteFunc(items, func(it string) bool { return it == "" })
		}
		if err != nil {
			return &UsageError{Msg: fmt.Sprintf("invalid value %q for %s: %v", raw, f.env, err)}
		}
		if len(items) == 0 {
			f.v.Set(reflect.Zero(f.v.Type()))
			continue
		}
		list := reflect.MakeSlice(f.v.Type(), 0, len(items))
		for _, it := range items {
			list = reflect.Append(list, reflect.ValueOf(it))
		}
		f.v.Set(list)
	}
	return nil
}
func (s *sliceValue) String() string {
	if s == nil || !s.v.IsValid() {
		return ""
	}
	return fmt.Sprint(s.v.Interface())
}

// ExitCode is the process exit status for an error Main returned: 0 for
// none or --help, 2 for a bad setting, 1 otherwise.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil || errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	default:
		return 1
	}
}
