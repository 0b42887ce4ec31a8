package flagenv

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Shared is embedded in embedding: its fields are flags where it sits.
type Shared struct {
	Wait  time.Duration `flag:"wait" env:"T_WAIT" envDefault:"5s" help:"a wait"`
	Limit Size          `flag:"limit" env:"T_LIMIT" envDefault:"2KB" help:"a limit"`
	Inner int           `envDefault:"7"` // no flag: a default only
	Plain string        // no default
}

type embedding struct {
	First string `flag:"first" env:"T_FIRST" envDefault:"one" help:"before"`
	Shared
	Last int `flag:"last" env:"T_LAST" envDefault:"9" help:"after"`
}

// TestEmbeddedFlags: the fields of an embedded struct are flags and
// variables like the others, listed in --help where the struct sits.
func TestEmbeddedFlags(t *testing.T) {
	var got embedding
	if _, err := Parse(Command{Name: "t"}, &got, []string{"--wait", "1m"}, []string{"T_LIMIT=3KB"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := embedding{First: "one", Shared: Shared{Wait: time.Minute, Limit: 3 << 10, Inner: 7}, Last: 9}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
	var help strings.Builder
	_, _ = Parse(Command{Name: "t"}, &embedding{}, []string{"--help"}, nil, &help)
	if got, want := flagOrder(help.String()), []string{"first", "wait", "limit", "last"}; !cmp.Equal(got, want) {
		t.Errorf("--help lists %v, want %v", got, want)
	}
}

// TestDefaults: Defaults gives a struct built in code the defaults its
// tags give a parsed one, where a field is zero or negative, and keeps
// what is set.
func TestDefaults(t *testing.T) {
	tests := []struct {
		name     string
		in, want Shared
	}{
		{"zero", Shared{}, Shared{Wait: 5 * time.Second, Limit: 2 << 10, Inner: 7}},
		{"negative", Shared{Wait: -time.Second, Limit: -1, Inner: -3}, Shared{Wait: 5 * time.Second, Limit: 2 << 10, Inner: 7}},
		{"set", Shared{Wait: time.Hour, Limit: 1, Inner: 2, Plain: "p"}, Shared{Wait: time.Hour, Limit: 1, Inner: 2, Plain: "p"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			if err := Defaults(&got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Defaults (-want +got):\n%s", diff)
			}
		})
	}
	e := embedding{Last: 1}
	if err := Defaults(&e); err != nil {
		t.Fatal(err)
	}
	if want := (embedding{First: "one", Shared: Shared{Wait: 5 * time.Second, Limit: 2 << 10, Inner: 7}, Last: 1}); !cmp.Equal(want, e) {
		t.Errorf("Defaults of an embedding struct: got %+v, want %+v", e, want)
	}
}

// flagOrder lists the flags of a --help text in its order.
func flagOrder(help string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z-]+)`).FindAllStringSubmatch(help, -1) {
		out = append(out, m[1])
	}
	return out
}
