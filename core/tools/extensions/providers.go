package extensions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mjkoo/boris/core/extension"
	"github.com/mjkoo/boris/core/shell"
)

// Project-level resource providers (mcp-bash-framework's docs/REGISTRY.md,
// "Project-Level Providers"; the contract is in package extension). The
// script is the project's, so Boris treats it as it treats an extension
// tool: it runs through the session's shell (own process group, the
// sandbox, a timeout, cancellation, whatever it leaves killed), in a clean
// environment, and what it prints is bounded. It is only ever asked for a
// URI that one of its resources lists or one of its templates matches.

// extProviderDefaultLimit bounds what a provider prints when
// --max-file-size is unset.
const extProviderDefaultLimit = 10 << 20

// runProvider runs src's script for uri and returns what it printed. Its
// errors are the protocol errors to answer with: the framework's codes for
// the contract's exit statuses (3: resource not found, 4: invalid params,
// any other: internal error, with the end of what the script wrote to
// stderr), and internal errors for a run that timed out, printed more than
// --max-file-size, or could not start. Like completions, a provider does
// not run under --read-only or with bash disabled.
func (b *Set) runProvider(ctx context.Context, src extension.Source, uri string) ([]byte, error) {
	name := src.Provider
	if !b.opt.RunsCommands {
		return nil, providerError(jsonrpc.CodeInternalError, "resource %s is served by the project provider %s, a program, which Boris does not run under --read-only or with bash disabled", uri, name)
	}
	limit := int(b.opt.MaxFileSize)
	if limit <= 0 {
		limit = extProviderDefaultLimit
	}
	timeout := extDefaultTimeout
	if src.Timeout > 0 {
		timeout = time.Duration(src.Timeout) * time.Second
	}
	env := append(b.extCleanEnv(),
		"MCPBASH_PROJECT_ROOT="+src.Root,
		"MCPBASH_PROVIDERS_DIR="+filepath.Join(src.Root, extension.ProvidersDir),
		"MCP_RESOURCES_ROOTS="+filepath.Join(src.Root, "resources"))
	argv := append(extArgv(src.Script, env), uri)
	// Limit counts characters, of which a byte is at least one: a run that
	// keeps no more than limit+1 of them and no more than limit bytes
	// printed at most limit bytes.
	res, err := b.d.Shell().Exec(ctx, shell.Program{Argv: argv, Dir: src.Root, Env: env}, shell.Options{Timeout: timeout, Limit: limit + 1})
	switch {
	case err != nil:
		return nil, providerError(jsonrpc.CodeInternalError, "could not run the resource provider %s: %v", name, err)
	case res.Canceled:
		return nil, providerError(jsonrpc.CodeInternalError, "the resource provider %s was cancelled", name)
	case res.TimedOut:
		return nil, providerError(jsonrpc.CodeInternalError, "the resource provider %s timed out after %s reading %s and was stopped", name, timeout, uri)
	case res.ExitCode != 0:
		return nil, providerExit(name, uri, res)
	case res.StdoutCut > 0 || len(res.Stdout) > limit:
		return nil, providerError(jsonrpc.CodeInternalError, "the resource provider %s printed more than %d bytes for %s (--max-file-size)", name, limit, uri)
	}
	return []byte(res.Stdout), nil
}

// providerExit is the error of a provider that exited with a status other
// than 0, as the framework maps it (lib/resources.sh,
// mcp_resources_read_via_provider).
func providerExit(name, uri string, res *shell.Result) error {
	msg := providerStderr(res)
	switch res.ExitCode {
	case extension.ProviderNotFound:
		return mcp.ResourceNotFoundError(uri)
	case extension.ProviderOutside:
		return providerError(jsonrpc.CodeInternalError, "resource %s is outside the allowed roots (provider %s)%s", uri, name, msg)
	case extension.ProviderInvalid:
		return providerError(jsonrpc.CodeInvalidParams, "invalid resource specification %s (provider %s)%s", uri, name, msg)
	case extension.ProviderFetch:
		return providerError(jsonrpc.CodeInternalError, "the resource provider %s could not fetch %s%s", name, uri, msg)
	case extension.ProviderTooLarge:
		return providerError(jsonrpc.CodeInternalError, "resource %s exceeded the provider %s's size limit%s", uri, name, msg)
	}
	return providerError(jsonrpc.CodeInternalError, "the resource provider %s failed reading %s (exit status %d)%s", name, uri, res.ExitCode, msg)
}

// providerStderr is ": " and the end of what a provider wrote to stderr
// (at most 2000 characters), or "" when it wrote nothing.
func providerStderr(res *shell.Result) string {
	s := strings.TrimSpace(res.Stderr)
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 2000 {
		s = "…" + string(r[len(r)-2000:])
	}
	return ": " + s
}

func providerError(code int64, format string, args ...any) error {
	return &jsonrpc.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// providerState is what a subscribed provider resource looks like now: a
// digest of what the provider prints for it, or of its error, as the
// framework's poller compares reads.
func (b *Set) providerState(ctx context.Context, src extension.Source, uri string) string {
	data, err := b.runProvider(ctx, src, uri)
	if err != nil {
		data = []byte("error: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
