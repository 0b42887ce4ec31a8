package extensions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/shell"
	"github.com/mjkoo/boris/internal/flagenv"
)

// complete answers completion/complete for extension prompts, resources
// and resource templates. The reference names a completion provider as
// the framework does (docs/COMPLETION.md): ref/prompt by the prompt's
// name, ref/resource by the name of the resource or template whose URI
// it gives. A provider registered under that name in server.d/
// register.json runs like an extension tool (and, like one, not under
// --read-only or with bash disabled); without one, a prompt argument
// completes from its schema's enum.
func (b *Set) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	c, ref := b.content.cat.Load(), req.Params.Ref
	var name, root string
	var prompt *extension.Prompt
	switch ref.Type {
	case "ref/prompt":
		for _, p := range c.prompts {
			if p.Prompt.Name == ref.Name {
				prompt, name, root = p, p.Prompt.Name, p.Root
			}
		}
	case "ref/resource":
		for _, r := range c.resources {
			if r.Resource.URI == ref.URI {
				name, root = r.Resource.Name, r.Root
			}
		}
		for _, t := range c.templates {
			if t.Template.URITemplate == ref.URI {
				name, root = t.Template.Name, t.Root
			}
		}
	}
	if name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion/complete: no prompt or resource matches %s %q", ref.Type, ref.Name+ref.URI)}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if comp := c.completions[name]; comp != nil && b.opt.RunsCommands {
		values, more, err := b.runCompletion(ctx, comp, root, req.Params)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		res.Completion.Values = append(res.Completion.Values, values...)
		res.Completion.HasMore = more
		return res, nil
	}
	if prompt != nil {
		res.Completion.Values = append(res.Completion.Values, prompt.Complete(req.Params.Argument.Name, req.Params.Argument.Value)...)
	}
	return res, nil
}

// runCompletion runs a completion script with the framework's variables
// (MCP_COMPLETION_NAME, MCP_COMPLETION_ARGS_JSON with query and prefix,
// MCP_COMPLETION_LIMIT, MCP_COMPLETION_OFFSET, MCP_COMPLETION_ARGS_HASH)
// and parses what it prints.
func (b *Set) runCompletion(ctx context.Context, comp *extension.Completion, root string, p *mcp.CompleteParams) ([]string, bool, error) {
	args := map[string]any{
		"name": p.Argument.Name, "query": p.Argument.Value, "prefix": p.Argument.Value,
		"ref": p.Ref, "context": map[string]any{"arguments": map[string]string{}},
	}
	if p.Context != nil && p.Context.Arguments != nil {
		args["context"] = map[string]any{"arguments": p.Context.Arguments}
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return nil, false, err
	}
	sum := sha256.Sum256(argsJSON)
	env := append(b.extCleanEnv(),
		"MCP_SDK="+b.sdk, "MCPBASH_PROJECT_ROOT="+root,
		"MCP_COMPLETION_NAME="+comp.Name, "MCP_COMPLETION_ARGS_JSON="+string(argsJSON),
		"MCP_COMPLETION_LIMIT="+strconv.Itoa(extension.MaxCompletions), "MCP_COMPLETION_OFFSET=0",
		"MCP_COMPLETION_ARGS_HASH="+hex.EncodeToString(sum[:]))
	timeout := extDefaultTimeout
	if comp.Timeout > 0 {
		timeout = time.Duration(comp.Timeout) * time.Second
	}
	res, err := b.d.Shell().Exec(ctx, shell.Program{Argv: extArgv(comp.Exec, env), Dir: comp.Root, Env: env}, shell.Options{Timeout: timeout})
	switch {
	case err != nil:
		return nil, false, fmt.Errorf("could not run completion %s: %v", comp.Name, err)
	case res.TimedOut:
		return nil, false, fmt.Errorf("completion %s timed out after %s", comp.Name, timeout)
	case res.ExitCode != 0:
		return nil, false, fmt.Errorf("completion %s exited with status %d%s", comp.Name, res.ExitCode, stderrTail(res))
	}
	values, more, err := extension.CompletionOutput(res.Stdout)
	if err != nil {
		return nil, false, fmt.Errorf("completion %s printed %v", comp.Name, err)
	}
	return values, more, nil
}

// extCleanEnv is the environment extension scripts start from: PATH,
// HOME, the locale and the session's TMPDIR, and the JSON tool the
// framework's scripts look for.
func (b *Set) extCleanEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "MCPBASH_ELICITATION_TIMEOUT"} {
		if v := flagenv.Lookup(b.environ, k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if tmp := b.opt.TempDir; tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	} else if v := flagenv.Lookup(b.environ, "TMPDIR"); v != "" {
		env = append(env, "TMPDIR="+v)
	}
	if jq, err := exec.LookPath("jq"); err == nil {
		return append(env, "MCPBASH_JSON_TOOL=jq", "MCPBASH_JSON_TOOL_BIN="+jq)
	}
	return append(env, "MCPBASH_JSON_TOOL=none")
}
