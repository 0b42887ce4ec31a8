package extension

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// sdkFiles is Boris's shell SDK for extension tools, the helper functions
// mcp-bash-framework documents for tools written for Boris's host
// contract: sdk/tool-sdk.sh, the common path (arguments, JSON objects,
// mcp_result_success, cancellation) and a stub for every other helper, and
// sdk/tool-sdk-more.sh, the rest, which tool-sdk.sh loads from beside
// itself the first time a tool calls one (so that a call pays for parsing
// only the common path).
//
//go:embed sdk/*.sh
var sdkFiles embed.FS

// WriteSDK writes the shell SDK's files into dir, which must exist: the
// core does at start, and dir becomes the tools' MCP_SDK.
func WriteSDK(dir string) error {
	entries, err := sdkFiles.ReadDir("sdk")
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := sdkFiles.ReadFile("sdk/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			return fmt.Errorf("write the SDK: %w", err)
		}
	}
	return nil
}
