package dashboard

import (
	"fmt"
	"testing"
)

// TestLoginStoreBounds: one principal's logins stop at
// maxLoginsPerPrincipal, its oldest going first; past maxLogins in all, a
// newcomer's login costs the principal holding the most, never one with
// fewer.
func TestLoginStoreBounds(t *testing.T) {
	s := newLoginStore(0)
	alice, _ := s.add("token\x00alice", "a")
	var bob []string
	for range 2 * maxLoginsPerPrincipal {
		id, _ := s.add("token\x00bob", "b")
		bob = append(bob, id)
	}
	if _, ok := s.token(alice); !ok {
		t.Error("alice's login after bob's flood: gone, want kept")
	}
	for i, id := range bob {
		_, ok := s.token(id)
		if want := i >= maxLoginsPerPrincipal; ok != want {
			t.Errorf("bob's login %d of %d: kept %v, want %v", i+1, len(bob), ok, want)
		}
	}

	s = newLoginStore(0)
	few, _ := s.add("token\x00few", "f")
	for p := 0; len(s.logins) < maxLogins; p++ {
		for range min(maxLoginsPerPrincipal, maxLogins-len(s.logins)) {
			s.add(fmt.Sprintf("token\x00p%d", p), "t")
		}
	}
	s.add("token\x00newcomer", "n")
	if _, ok := s.token(few); !ok {
		t.Error("a principal with one login, at the global cap: its login went, want one of a principal holding the most")
	}
	if len(s.logins) != maxLogins {
		t.Errorf("logins at the global cap: got %d, want %d", len(s.logins), maxLogins)
	}
}
