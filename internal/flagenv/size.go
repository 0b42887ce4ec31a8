package flagenv

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Size is a byte count written as a plain number of bytes or with a unit:
// "10MB", "512KB", "1GB" (powers of 1024, as users of file-size limits expect).
type Size int64

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
	{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1},
}

// UnmarshalText parses a size such as "10MB".
func (s *Size) UnmarshalText(text []byte) error {
	str := strings.ToUpper(strings.TrimSpace(string(text)))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(str, u.suffix) {
			str, mult = strings.TrimSpace(strings.TrimSuffix(str, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(str, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return errors.New("want a positive size such as 10MB, 512KB or a byte count")
	}
	*s = Size(n * mult)
	return nil
}

// String formats the size with the largest exact unit.
func (s Size) String() string {
	n := int64(s)
	for _, u := range sizeUnits[:3] {
		if n >= u.mult && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}
