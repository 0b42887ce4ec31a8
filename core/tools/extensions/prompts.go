package extensions

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
)

// getExtPrompt renders an extension prompt (prompts/get): its template
// with the arguments substituted, as one message in the prompt's role, or
// the messages of a messages template (extension.MessagesSuffix). A
// missing required argument is invalid params, as MCP says for "missing
// required arguments".
func (b *Set) getExtPrompt(p *extension.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		msgs, err := p.Messages(req.Params.Arguments)
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
