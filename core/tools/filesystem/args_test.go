package filesystem

import (
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestDecodeArgsNamesExact: in the toolset's schemas, open to members they
// do not name as server-filesystem's are, a member that is another case of
// a property is still refused with INVALID_INPUT naming it, at any depth,
// and never read as the property.
func TestDecodeArgsNamesExact(t *testing.T) {
	refused := func(err error, member string) bool {
		return err != nil && strings.HasPrefix(err.Error(), "[INVALID_INPUT]") && strings.Contains(err.Error(), `"`+member+`"`)
	}
	t.Run("open schema", func(t *testing.T) {
		for raw, member := range map[string]string{
			`{"path":"a.txt","content":"x","PATH":"b.txt"}`:  "PATH",
			`{"PATH":"b.txt","content":"x","path":"a.txt"}`:  "PATH",
			`{"path":"a.txt","Content":"y","content":"x"}`:   "Content",
			`{"path":"a.txt","content":"x","\u0050ath":"b"}`: "Path",
		} {
			if p, err := toolkit.Decode[fsWriteParams]([]byte(raw)); !refused(err, member) {
				t.Errorf("write_file %s: got %+v, %v; want INVALID_INPUT naming %q", raw, p, err, member)
			}
		}
		p, err := toolkit.Decode[fsWriteParams]([]byte(`{"\u0070ath":"a.txt","content":"x","unknown":{"PATH":"b"}}`))
		if err != nil || p.Path != "a.txt" {
			t.Errorf("write_file with an escaped name and an unknown member: got %+v, %v; want path a.txt", p, err)
		}
	})
	t.Run("nested", func(t *testing.T) {
		raw := `{"path":"a.txt","edits":[{"oldText":"x","newText":"y","NEWTEXT":"z"}]}`
		if p, err := toolkit.Decode[fsEditParams]([]byte(raw)); !refused(err, "edits.0.NEWTEXT") {
			t.Errorf("edit_file %s: got %+v, %v; want INVALID_INPUT naming edits.0.NEWTEXT", raw, p, err)
		}
	})
}
