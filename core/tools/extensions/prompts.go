package extensions

//lint:file-ignore SA1019 sampling and roots are deprecated by the 2026-07-28 revision but are what extension prompts may ask a client for (docs/reference/core.md#extensions)

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
)

// getExtPrompt renders an extension prompt (prompts/get): its template
// with the arguments substituted, as one message in the prompt's role, or
// the messages of a messages template (extension.MessagesSuffix). A
// missing required argument is invalid params, as MCP says for "missing
// required arguments". A prompt with inputs asks its client first (see
// promptAnswers).
func (b *Set) getExtPrompt(p *extension.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		answers, ask, err := promptAnswers(ctx, req, p)
		if err != nil {
			return nil, err
		}
		if ask != nil {
			return &mcp.GetPromptResult{InputRequests: ask}, nil
		}
		msgs, err := p.Messages(req.Params.Arguments, answers)
		if errors.Is(err, extension.ErrMissingArgument) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s: %v", p.Prompt.Name, err)}
		}
		if err != nil {
			b.opt.Log.Warn("extension prompt failed", "prompt", p.Prompt.Name, "err", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		return &mcp.GetPromptResult{
			Description: p.Prompt.Description,
			Messages:    msgs,
		}, nil
	}
}

// promptAnswers gets the answers to p's inputs, those the client declared
// the capability for (the others render empty): on a 2026-07-28 request
// from its inputResponses, the missing ones returned as the questions of
// an InputRequiredResult (rendering asks nothing twice, so no state is
// kept); on a session by asking the client now.
func promptAnswers(ctx context.Context, req *mcp.GetPromptRequest, p *extension.Prompt) (map[string]any, mcp.InputRequestMap, error) {
	if len(p.Inputs) == 0 {
		return nil, nil, nil
	}
	caps := capsOfClient(req.ClientCapabilities())
	rounds := req.ProtocolVersion() >= "2026-07-28"
	answers := map[string]any{}
	var missing []string
	keys := make([]string, 0, len(p.Inputs))
	for k := range p.Inputs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		var q struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(p.Inputs[key], &q)
		if !caps.has(inputCapability[q.Method]) {
			continue
		}
		var raw json.RawMessage
		if r, ok := req.Params.InputResponses[key]; ok && r != nil {
			raw, _ = json.Marshal(r)
		} else if rounds {
			missing = append(missing, fmt.Sprintf("%q:%s", key, p.Inputs[key]))
			continue
		} else {
			if len(q.Params) == 0 {
				q.Params = json.RawMessage("{}")
			}
			var err error
			if raw, err = askClient(ctx, req.Session, q.Method, q.Params); err != nil {
				continue // declined by the transport or the client: rendered empty
			}
		}
		var v any
		if json.Unmarshal(raw, &v) == nil {
			answers[key] = v
		}
	}
	if len(missing) == 0 {
		return answers, nil, nil
	}
	var m mcp.InputRequestMap
	if err := json.Unmarshal([]byte("{"+strings.Join(missing, ",")+"}"), &m); err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %s: inputs: %v", p.Prompt.Name, err)}
	}
	return nil, m, nil
}
