package flagenv

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testConfig struct {
	Name  string   `flag:"name" env:"T_NAME" envDefault:"def" help:"a name"`
	Count int      `flag:"count" env:"T_COUNT" envDefault:"3" help:"a count"`
	On    bool     `flag:"on" env:"T_ON" envDefault:"false" help:"a switch"`
	List  []string `flag:"item" env:"T_ITEMS" help:"items"`
	Size  Size     `flag:"size" env:"T_SIZE" envDefault:"1KB" help:"a size"`
	Path  string   `flag:"path" env:"T_PATH" helpDefault:"next to the binary" help:"a path found when unset"`
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    testConfig
	}{
		{"defaults", nil, nil, testConfig{Name: "def", Count: 3, Size: 1024}},
		{"env beats default", nil, []string{"T_NAME=env", "T_COUNT=5", "T_ON=true", "T_ITEMS=a,b", "T_SIZE=2MB"},
			testConfig{Name: "env", Count: 5, On: true, List: []string{"a", "b"}, Size: 2 << 20}},
		{"flag beats env", []string{"--name", "flag", "--count=7", "--item", "c", "--item", "d,e", "--size", "512"},
			[]string{"T_NAME=env", "T_COUNT=5", "T_ITEMS=a,b"},
			testConfig{Name: "flag", Count: 7, List: []string{"c", "d", "e"}, Size: 512}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got testConfig
			if _, err := Parse(Command{Name: "t"}, &got, tt.args, tt.environ, io.Discard); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"flag not a number", []string{"--count", "x"}, nil, "want an integer"},
		{"env not a number", nil, []string{"T_COUNT=x"}, "T_COUNT"},
		{"bad size", []string{"--size", "10XB"}, nil, "10MB"},
		{"bad env size", nil, []string{"T_SIZE=-1"}, "T_SIZE"},
		{"bad bool", []string{"--on=maybe"}, nil, "true or false"},
		{"unknown flag", []string{"--nope"}, nil, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg testConfig
			var out strings.Builder
			_, err := Parse(Command{Name: "t"}, &cfg, tt.args, tt.environ, &out)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want a UsageError mentioning %q", err, tt.want)
			}
			if ExitCode(err) != 2 || out.Len() != 0 {
				t.Errorf("got exit %d and %d bytes of usage, want 2 and none", ExitCode(err), out.Len())
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var cfg testConfig
	var out strings.Builder
	_, err := Parse(Command{Name: "t", Usage: "[flags]"}, &cfg, []string{"--help"}, nil, &out)
	if !errors.Is(err, ErrHelp) || ExitCode(err) != 0 {
		t.Fatalf("got %v, want ErrHelp with exit 0", err)
	}
	for _, want := range []string{"--name value", "env T_NAME, default def", "--on\n", "env T_ITEMS, default none", "env T_PATH, default next to the binary"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSizeString(t *testing.T) {
	for in, want := range map[string]string{"10MB": "10MB", "1536": "1536", "2048": "2KB", "1g": "1GB"} {
		var s Size
		if err := s.UnmarshalText([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := s.String(); got != want {
			t.Errorf("Size(%q).String() = %q, want %q", in, got, want)
		}
	}
}

type boundedConfig struct {
	Timeout int    `flag:"timeout" env:"T_TIMEOUT" envDefault:"120" min:"1" max:"600" help:"seconds"`
	Limit   int    `flag:"limit" env:"T_LIMIT" envDefault:"10" min:"0" help:"tasks"`
	Format  string `flag:"format" env:"T_FORMAT" envDefault:"text" oneof:"text,json" help:"format"`
	Mode    string `flag:"mode" env:"T_MODE" envDefault:"auto" oneof:"auto,required,off" want:"auto, required or off (see --help)" help:"mode"`
	On      bool   `flag:"on" env:"T_ON" envDefault:"false" help:"a switch"`
	Size    Size   `flag:"size" env:"T_SIZE" envDefault:"1KB" help:"a size"`
}

// TestErrorMessages pins the one line a bad setting gets: it names the
// flag (with two dashes) or the environment variable the value came from,
// the value, and what is accepted.
func TestErrorMessages(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    string
	}{
		{"env not a number", nil, []string{"T_TIMEOUT=abc"}, `invalid value "abc" for T_TIMEOUT: want an integer`},
		{"env not a bool", nil, []string{"T_ON=maybe"}, `invalid value "maybe" for T_ON: want true or false`},
		{"env bad size", nil, []string{"T_SIZE=lots"}, `invalid value "lots" for T_SIZE: want a positive size such as 10MB, 512KB or a byte count`},
		{"env out of range", nil, []string{"T_TIMEOUT=0"}, `invalid value 0 for T_TIMEOUT: want an integer from 1 to 600`},
		{"env below min", nil, []string{"T_LIMIT=-1"}, `invalid value -1 for T_LIMIT: want 0 or more`},
		{"env not a choice", nil, []string{"T_FORMAT=xml"}, `invalid value "xml" for T_FORMAT: want text or json`},
		{"flag out of range", []string{"--timeout", "601"}, nil, `invalid value 601 for --timeout: want an integer from 1 to 600`},
		{"flag beats a bad env", []string{"--timeout", "601"}, []string{"T_TIMEOUT=5"}, `invalid value 601 for --timeout: want an integer from 1 to 600`},
		{"flag not a choice", []string{"--mode=on"}, nil, `invalid value "on" for --mode: want auto, required or off (see --help)`},
		{"flag not a number", []string{"--timeout", "x"}, nil, `invalid value "x" for --timeout: want an integer`},
		{"bool flag", []string{"--on=maybe"}, nil, `invalid value "maybe" for --on: want true or false`},
		{"single-dash bool flag", []string{"-on=maybe"}, nil, `invalid value "maybe" for --on: want true or false`},
		{"missing value", []string{"--timeout"}, nil, `--timeout needs a value`},
		{"unknown flag", []string{"-nope"}, nil, `unknown flag --nope (see --help)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg boundedConfig
			_, err := Parse(Command{Name: "t"}, &cfg, tt.args, tt.environ, io.Discard)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
			if ExitCode(err) != 2 {
				t.Errorf("exit code %d, want 2", ExitCode(err))
			}
		})
	}
	var cfg boundedConfig
	if _, err := Parse(Command{Name: "t"}, &cfg, []string{"--timeout", "600"}, []string{"T_TIMEOUT=0"}, io.Discard); err != nil {
		t.Errorf("a good flag over an out-of-range env value: got %v, want nil (the flag wins)", err)
	}
}

// TestLists: list settings split at commas outside braces, flags and
// environment alike; a split:"env" list takes each flag value whole; and
// unbalanced braces are refused, naming the setting and saying why.
func TestLists(t *testing.T) {
	type lists struct {
		Deny   []string `flag:"deny" env:"T_DENY" help:"patterns"`
		Tokens []string `flag:"token" env:"T_TOKENS" split:"env" help:"tokens"`
	}
	tests := []struct {
		name    string
		args    []string
		environ []string
		want    lists
		err     string
	}{
		{"brace flag", []string{"--deny", "**/{.env,secrets}"}, nil, lists{Deny: []string{"**/{.env,secrets}"}}, ""},
		{"brace env", nil, []string{"T_DENY=**/{.env,secrets}, **/*.pem"}, lists{Deny: []string{"**/{.env,secrets}", "**/*.pem"}}, ""},
		{"nested braces and escapes", []string{"--deny", `a/{b,{c,d}},e\,f`}, nil, lists{Deny: []string{"a/{b,{c,d}}", `e\,f`}}, ""},
		{"whole flag", []string{"--token", "a=x,y{z"}, []string{"T_TOKENS=b=1,c=2"}, lists{Tokens: []string{"a=x,y{z"}}, ""},
		{"whole env splits at every comma", nil, []string{"T_TOKENS=b={1,c=2}"}, lists{Tokens: []string{"b={1", "c=2}"}}, ""},
		{"unclosed flag", []string{"--deny", "**/{.env,secrets"}, nil, lists{}, `invalid value "**/{.env,secrets" for --deny: a { is never closed`},
		{"stray close env", nil, []string{"T_DENY=a},b"}, lists{}, `invalid value "a},b" for T_DENY: a } at byte 2 closes no {`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got lists
			_, err := Parse(Command{Name: "t"}, &got, tt.args, tt.environ, io.Discard)
			if tt.err != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("got error %v, want a usage error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}
