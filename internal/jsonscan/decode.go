package jsonscan

import (
	"fmt"

	segjson "github.com/segmentio/encoding/json"
)

// Unmarshal decodes data into v as go-sdk decodes a JSON-RPC message and
// the params of a request (its internal/json.Unmarshal): with
// segmentio/encoding/json, member names matched to struct fields exactly,
// case and all (encoding/json would also match "Method" to a field tagged
// "method"), the last of a name winning as the decoder applies it (a null
// leaves a string as it was), and nothing nested deeper than SDKMaxDepth.
// Unlike the SDK's, it reads one value and nothing after it, and it
// allocates no 32 KB read buffer.
func Unmarshal(data []byte, v any) error {
	if TooDeep(data, SDKMaxDepth) {
		return fmt.Errorf("json: exceeded maximum nesting depth of %d", SDKMaxDepth)
	}
	rest, err := segjson.Parse(data, v, segjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("json: invalid character %q after top-level value", rest[0])
	}
	return nil
}
