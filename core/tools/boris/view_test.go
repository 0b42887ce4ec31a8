package boris

import (
	"io"
	"strings"
	"testing"
)

// countingReader counts the reads made of it.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

func TestReadHead(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		size      int64
		bufSize   int
		wantWhole bool
		wantReads int
	}{
		{"small file, size known: one read", "hello\n", 6, 16, true, 1},
		{"size 0 (as /proc says): read to the end", "hello\n", 0, 16, true, 2},
		{"larger than the buffer", strings.Repeat("x", 40), 40, 16, false, 1},
		{"grew since stat: the stat size is shown", "hello world\n", 5, 16, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(tt.data)}
			head, whole, err := readHead(r, make([]byte, tt.bufSize), tt.size)
			if err != nil || whole != tt.wantWhole || r.reads != tt.wantReads {
				t.Errorf("readHead: whole %v, %d reads, err %v; want whole %v, %d reads", whole, r.reads, err, tt.wantWhole, tt.wantReads)
			}
			if want := tt.data[:min(len(tt.data), tt.bufSize)]; !strings.HasPrefix(want, string(head)) || len(head) == 0 {
				t.Errorf("head = %q, want a prefix of %q", head, want)
			}
		})
	}
}
