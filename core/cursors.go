package core

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// List cursors (tools/list, resources/list, resources/templates/list,
// prompts/list) are opaque to clients, and Boris makes them so: the SDK's
// cursor is sealed with the list's method and a generation of the lists
// under an HMAC whose key lives only in this process. A cursor of another
// list (foreign), of an earlier generation (stale: the extension
// directories changed since), or made up is refused with invalid params
// instead of silently resuming somewhere.

// cursorSeal is the process's cursor key and the lists' generation.
type cursorSeal struct {
	key     []byte
	keyOnce sync.Once    // makes key when a list is first paged: a process's first crypto/rand read costs start-up a tenth of a millisecond
	gen     atomic.Int64 // bumped whenever a list's content changes
}

func newCursorSeal() *cursorSeal { return &cursorSeal{} }

// seal wraps the SDK's cursor for method.
func (c *cursorSeal) seal(method, inner string) string {
	payload := strconv.FormatInt(c.gen.Load(), 10) + "\x00" + method + "\x00" + inner
	return base64.RawURLEncoding.EncodeToString(append(c.mac(payload), payload...))
}

// open unwraps a cursor sealed for method, or says why it cannot.
func (c *cursorSeal) open(method, cursor string) (string, string) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) < sha256.Size {
		return "", "not a cursor this server made"
	}
	sum, payload := raw[:sha256.Size], string(raw[sha256.Size:])
	if !hmac.Equal(sum, c.mac(payload)) {
		return "", "not a cursor this server made"
	}
	f := strings.SplitN(payload, "\x00", 3)
	if len(f) != 3 || f[1] != method {
		return "", "a cursor of another list"
	}
	if f[0] != strconv.FormatInt(c.gen.Load(), 10) {
		return "", "a stale cursor: the list changed since; list again from the start"
	}
	return f[2], ""
}

func (c *cursorSeal) mac(payload string) []byte {
	c.keyOnce.Do(func() {
		c.key = make([]byte, 32)
		_, _ = rand.Read(c.key) // crypto/rand.Read never fails
	})
	h := hmac.New(sha256.New, c.key)
	h.Write([]byte(payload))
	return h.Sum(nil)
}

// sealCursors is receiving middleware doing the sealing around the SDK's
// list methods.
func (b *boris) sealCursors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		cur := listCursor(req.GetParams())
		if cur != nil && *cur != "" {
			inner, why := b.cursors.open(method, *cur)
			if why != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": invalid cursor: " + why}
			}
			*cur = inner
		}
		res, err := next(ctx, method, req)
		if next := listNextCursor(res); next != nil && *next != "" {
			*next = b.cursors.seal(method, *next)
		}
		return res, err
	}
}

// listCursor points at a list request's cursor; nil for other requests.
// A request without params has a nil pointer of its type: no cursor.
func listCursor(p mcp.Params) *string {
	switch p := p.(type) {
	case *mcp.ListToolsParams:
		if p != nil {
			return &p.Cursor
		}
	case *mcp.ListResourcesParams:
		if p != nil {
			return &p.Cursor
		}
	case *mcp.ListResourceTemplatesParams:
		if p != nil {
			return &p.Cursor
		}
	case *mcp.ListPromptsParams:
		if p != nil {
			return &p.Cursor
		}
	}
	return nil
}

// listNextCursor points at a list result's next cursor; nil for others.
func listNextCursor(r mcp.Result) *string {
	switch r := r.(type) {
	case *mcp.ListToolsResult:
		if r != nil {
			return &r.NextCursor
		}
	case *mcp.ListResourcesResult:
		if r != nil {
			return &r.NextCursor
		}
	case *mcp.ListResourceTemplatesResult:
		if r != nil {
			return &r.NextCursor
		}
	case *mcp.ListPromptsResult:
		if r != nil {
			return &r.NextCursor
		}
	}
	return nil
}
