package flagenv

import "strings"

// Lookup returns the last value of key in environ.
func Lookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if rest, ok := strings.CutPrefix(kv, key+"="); ok {
			v = rest
		}
	}
	return v
}
