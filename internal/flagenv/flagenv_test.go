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
	for _, want := range []string{"--name value", "env T_NAME, default def", "--on\n", "env T_ITEMS, default none"} {
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
