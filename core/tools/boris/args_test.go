package boris

import (
	"strings"
	"testing"

	"github.com/mjkoo/boris/core/toolkit"
)

// TestDecodeArgsNamesExact: arguments are read under their exact names, as
// the schema validates them: a member that is another case of a property
// is refused with INVALID_INPUT naming it in a closed schema (create_file;
// the filesystem toolset's open ones are tested in its package).
func TestDecodeArgsNamesExact(t *testing.T) {
	refused := func(err error, member string) bool {
		return err != nil && strings.HasPrefix(err.Error(), "[INVALID_INPUT]") && strings.Contains(err.Error(), `"`+member+`"`)
	}
	t.Run("closed schema", func(t *testing.T) {
		raw := `{"path":"a.txt","content":"x","PATH":"b.txt"}`
		if p, err := toolkit.Decode[createFileParams]([]byte(raw)); !refused(err, "PATH") {
			t.Errorf("create_file %s: got %+v, %v; want INVALID_INPUT naming PATH", raw, p, err)
		}
	})
}
