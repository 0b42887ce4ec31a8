package extension

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mjkoo/boris/internal/safefile"
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
	return writeSDK(func(name string, data []byte) error {
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	})
}

// WriteSDKIn writes the shell SDK's files into the open directory d, as
// new files that replace whatever was there, following no link.
func WriteSDKIn(d *safefile.Dir) error {
	return writeSDK(func(name string, data []byte) error { return d.WriteFile(name, data, 0o644) })
}

// writeSDK hands each of the SDK's files to write.
func writeSDK(write func(name string, data []byte) error) error {
	entries, err := sdkFiles.ReadDir("sdk")
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := sdkFiles.ReadFile("sdk/" + e.Name())
		if err != nil {
			return err
		}
		if err := write(e.Name(), data); err != nil {
			return fmt.Errorf("write the SDK: %w", err)
		}
	}
	return nil
}
