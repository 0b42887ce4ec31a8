package launch

import (
	"strings"

	"github.com/mjkoo/boris/internal/cgroup"
	"github.com/mjkoo/boris/internal/flagenv"
)

// ListFlag appends values to a repeatable core flag without losing the
// operator's own: flags beat the environment in the core, so when the
// operator set the list only through its BORIS_* variable, that list is
// carried into the flags first (docs/reference/security.md: scope-derived restrictions add to
// the operator's core flags, never replace them).
func ListFlag(args, environ []string, flag, env string, values ...string) []string {
	if len(values) == 0 {
		return args
	}
	if !HasFlag(args, flag) {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, env+"="); ok {
				items, err := flagenv.SplitList(v) // as the core reads it: "**/{.env,secrets}" is one
				if err != nil {
					items = []string{v} // the core refuses it, saying why
				}
				for _, item := range items {
					args = append(args, "--"+flag, item)
				}
			}
		}
	}
	for _, v := range values {
		args = append(args, "--"+flag, v)
	}
	return args
}

// HasFlag reports whether args set --flag (or -flag, with or without =).
func HasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name := strings.TrimLeft(a, "-")
		name, _, _ = strings.Cut(name, "=")
		if strings.HasPrefix(a, "-") && name == flag {
			return true
		}
	}
	return false
}

// ScopeLists splits a principal's scope-derived core arguments into the
// --disable-tools values (merged with the operator's) and the rest.
func ScopeLists(args []string) (disable, rest []string) {
	for i := 0; i < len(args); i++ {
		if args[i] == "--disable-tools" && i+1 < len(args) {
			disable = append(disable, args[i+1])
			i++
			continue
		}
		rest = append(rest, args[i])
	}
	return disable, rest
}

// Spec is how one core starts: its arguments, environment and cgroup.
type Spec struct {
	Args  []string
	Env   []string
	Group *cgroup.Group // nil: no session cgroup
	// Owner is the principal (its subject key) whose quotas the core's
	// resources count against, such as its egress connections.
	Owner string
}

// SetEnv returns environ with the given NAME, VALUE pairs set.
func SetEnv(environ []string, kv ...string) []string {
	out := make([]string, 0, len(environ)+len(kv)/2)
	for _, e := range environ {
		name, _, _ := strings.Cut(e, "=")
		replaced := false
		for i := 0; i < len(kv); i += 2 {
			replaced = replaced || name == kv[i]
		}
		if !replaced {
			out = append(out, e)
		}
	}
	for i := 0; i < len(kv); i += 2 {
		out = append(out, kv[i]+"="+kv[i+1])
	}
	return out
}

// EnvValue is the value of name in environ, or "".
func EnvValue(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// FlagValue is the last value args give --flag (or -flag, with or without
// =), as the core's flag parser reads it.
func FlagValue(args []string, flag string) (string, bool) {
	var value string
	found := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			if a == "--" {
				break
			}
			continue
		}
		name, v, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != flag {
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			v = args[i]
		}
		value, found = v, true
	}
	return value, found
}
