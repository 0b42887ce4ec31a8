package jsonscan

import (
	"strings"
	"testing"
)

// TestUnmarshalMatchesNamesExactly: a member is read under its own name
// only (escapes decoded), the last of a name wins, and too deep or
// trailing input is refused.
func TestUnmarshalMatchesNamesExactly(t *testing.T) {
	type params struct {
		Path string `json:"path"`
		Name string `json:"name"`
	}
	tests := []struct {
		raw     string
		want    params
		wantErr bool
	}{
		{`{"path":"a","PATH":"b"}`, params{Path: "a"}, false},
		{`{"PATH":"b","path":"a"}`, params{Path: "a"}, false},
		{`{"Path":"b"}`, params{}, false},
		{`{"\u0070ath":"a","n\u0061me":"x"}`, params{Path: "a", Name: "x"}, false},
		{`{"path":"a","path":"b"}`, params{Path: "b"}, false},
		{`{"path":"a","path":null}`, params{Path: "a"}, false},
		{`{"name":"a"} {"name":"b"}`, params{}, true},
		{`{"name":` + strings.Repeat("[", SDKMaxDepth+1) + strings.Repeat("]", SDKMaxDepth+1) + `}`, params{}, true},
	}
	for _, tt := range tests {
		var got params
		err := Unmarshal([]byte(tt.raw), &got)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("Unmarshal(%.60s): got %+v, %v; want %+v, error %v", tt.raw, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestMember: the last member of exactly the name, escapes decoded.
func TestMember(t *testing.T) {
	tests := []struct {
		obj, name, want string
		ok              bool
	}{
		{`{"id":1,"method":"x"}`, "id", "1", true},
		{`{"ID":1,"method":"x"}`, "id", "", false},
		{`{"id":1,"id":"two"}`, "id", `"two"`, true},
		{`{"\u0069d":3}`, "id", "3", true},
		{`{"a":{"id":1}}`, "id", "", false},
		{`[{"id":1}]`, "id", "", false},
		{` { "id" : [1, {"x":"}"}] } `, "id", `[1, {"x":"}"}]`, true},
	}
	for _, tt := range tests {
		got, ok := Member([]byte(tt.obj), tt.name)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("Member(%s, %q): got %s, %v; want %s, %v", tt.obj, tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTooDeep counts brackets as go-sdk does: not inside strings, and not
// below zero.
func TestTooDeep(t *testing.T) {
	tests := []struct {
		raw   string
		limit int
		want  bool
	}{
		{`[[1]]`, 2, false},
		{`[[[1]]]`, 2, true},
		{`["[[[[", {"a":"\"[[["}]`, 2, false},
		{`]]]][[`, 2, false},
		{`{"a":[{"b":[]}]}`, 3, true},
	}
	for _, tt := range tests {
		if got := TooDeep([]byte(tt.raw), tt.limit); got != tt.want {
			t.Errorf("TooDeep(%s, %d): got %v, want %v", tt.raw, tt.limit, got, tt.want)
		}
	}
}
