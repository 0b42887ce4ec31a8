package shell

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/mjkoo/boris/internal/plural"
)

// DefaultLimit is the number of characters kept per output stream when no
// limit is given. It is large enough for ordinary command output yet small
// enough not to flood the agent's context window.
const DefaultLimit = 30000

// Capped is an io.Writer that keeps the first and last Limit/2 characters
// written to it and counts the characters it drops in between.
//
// Memory is bounded by the limit, not by how much is written: the head is
// filled once and the tail lives in a fixed-size ring buffer, so a command
// printing a gigabyte costs no more than one printing a page. Characters are
// runes; a multi-byte rune split across two writes is never cut in half, and
// an invalid byte counts as one character (as utf8.DecodeRune sees it).
//
// Capped is safe for concurrent use, so String may be called while another
// goroutine is still writing (e.g. to show a background task's progress).
type Capped struct {
	mu      sync.Mutex
	headMax int // characters kept from the start
	tailMax int // characters kept from the end

	head  []byte // the first headN characters, verbatim
	headN int

	// ring holds the most recent bytes written after the head filled. It is
	// sized so it always contains at least tailMax+1 whole characters, which
	// lets String find the last tailMax characters even though its oldest
	// bytes may begin mid-rune.
	ring    []byte
	ringPos int   // where the next byte goes
	ringLen int   // bytes held, up to len(ring)
	tailN   int64 // characters written after the head filled

	// pend holds a trailing incomplete rune until the next Write completes it,
	// so rune boundaries do not depend on how the stream was chunked.
	pend  [utf8.UTFMax]byte
	npend int
}

// NewCapped returns a Capped keeping limit characters in total (the first
// limit/2 and the last limit-limit/2). A limit <= 0 means DefaultLimit.
func NewCapped(limit int) *Capped {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Capped{headMax: limit / 2, tailMax: limit - limit/2}
}

// Write records p. It never fails and always reports len(p) written, so it
// can sit behind io.Copy or an os/exec pipe without stopping the writer.
func (c *Capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.npend > 0 {
		p = c.resolvePending(p)
		if p == nil {
			return n, nil
		}
	}
	k := incompleteSuffix(p)
	c.feed(p[:k])
	c.npend = copy(c.pend[:], p[k:])
	return n, nil
}

// resolvePending completes the pending partial rune with the first bytes of
// p, feeds every character that started in the pending bytes, and returns
// the rest of p (which then starts on a character boundary). It returns nil
// when p was too short to resolve anything; the bytes then stay pending.
func (c *Capped) resolvePending(p []byte) []byte {
	var tmp [2 * utf8.UTFMax]byte
	m := min(len(p), utf8.UTFMax)
	b := append(append(tmp[:0], c.pend[:c.npend]...), p[:m]...)
	i := 0
	for i < c.npend && utf8.FullRune(b[i:]) {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	c.feed(b[:i])
	if i < c.npend {
		// Still incomplete: p was shorter than the rest of the rune.
		c.npend = copy(c.pend[:], b[i:])
		return nil
	}
	c.npend = 0
	return p[i-(len(b)-m):]
}

// incompleteSuffix returns the length of the longest prefix of p that ends on
// a character boundary; what follows is the start of a rune that later bytes
// may complete. A rune-start byte is always a boundary because invalid
// sequences decode one byte at a time.
func incompleteSuffix(p []byte) int {
	for j := len(p) - 1; j >= 0 && j >= len(p)-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(p[j]) {
			if !utf8.FullRune(p[j:]) {
				return j
			}
			break
		}
	}
	return len(p)
}

// feed records b, which ends on a character boundary: first into the head
// until it is full, then into the tail ring.
func (c *Capped) feed(b []byte) {
	if c.headN < c.headMax {
		i := 0
		for i < len(b) && c.headN < c.headMax {
			_, size := utf8.DecodeRune(b[i:])
			i += size
			c.headN++
		}
		c.head = append(c.head, b[:i]...)
		b = b[i:]
	}
	if len(b) == 0 {
		return
	}
	c.tailN += int64(utf8.RuneCount(b))
	c.ringWrite(b)
}

// ringWrite appends b to the tail ring, overwriting the oldest bytes. The ring
// is allocated on first use so short outputs never pay for it.
func (c *Capped) ringWrite(b []byte) {
	if c.ring == nil {
		c.ring = make([]byte, utf8.UTFMax*(c.tailMax+1))
	}
	size := len(c.ring)
	if len(b) >= size {
		copy(c.ring, b[len(b)-size:])
		c.ringPos, c.ringLen = 0, size
		return
	}
	n := copy(c.ring[c.ringPos:], b)
	copy(c.ring, b[n:])
	c.ringPos = (c.ringPos + len(b)) % size
	c.ringLen = min(c.ringLen+len(b), size)
}

// ringBytes returns the ring's contents, oldest first, in a new slice.
func (c *Capped) ringBytes() []byte {
	out := make([]byte, 0, c.ringLen+c.npend)
	start := c.ringPos - c.ringLen
	if start < 0 {
		out = append(out, c.ring[start+len(c.ring):]...)
		start = 0
	}
	return append(out, c.ring[start:c.ringPos]...)
}

// snapshot returns the kept head and tail and the number of characters cut,
// treating any pending partial rune as if the stream ended now. It does not
// modify c, so a later Write can still complete that rune.
func (c *Capped) snapshot() (head, tail []byte, cut int64) {
	head = c.head[:len(c.head):len(c.head)]
	extra := c.pend[:c.npend]
	if c.headN < c.headMax && len(extra) > 0 {
		i, n := 0, c.headN
		for i < len(extra) && n < c.headMax {
			_, size := utf8.DecodeRune(extra[i:])
			i += size
			n++
		}
		head = append(head, extra[:i]...)
		extra = extra[i:]
	}
	total := c.tailN + int64(utf8.RuneCount(extra))
	tail = append(c.ringBytes(), extra...)
	tail, kept := lastChars(tail, c.tailMax)
	return head, tail, total - int64(kept)
}

// lastChars returns the suffix of b holding its last n characters and how
// many characters that is. Decoding forward from the ring's oldest byte may
// misread a leading partial rune as invalid bytes, but UTF-8 resynchronizes
// within a rune and the ring holds more than n whole characters, so the
// suffix returned is never affected.
func lastChars(b []byte, n int) ([]byte, int) {
	count := utf8.RuneCount(b)
	i := 0
	for skip := count - n; skip > 0; skip-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b[i:], min(count, n)
}

// String returns the kept head, a marker saying how many characters were cut
// (only if any were), and the kept tail.
func (c *Capped) String() string {
	c.mu.Lock()
	head, tail, cut := c.snapshot()
	c.mu.Unlock()
	if cut == 0 {
		return string(head) + string(tail)
	}
	return string(head) + cutMarker(cut) + string(tail)
}

// Cut returns the number of characters dropped so far (0 = nothing lost).
func (c *Capped) Cut() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _, cut := c.snapshot()
	return cut
}

// cutMarker is the text String puts where characters were dropped. It stands
// on its own lines so it cannot be mistaken for part of the output.
func cutMarker(cut int64) string {
	return fmt.Sprintf("\n\n... [%s cut] ...\n\n", plural.S(int(cut), "character"))
}
