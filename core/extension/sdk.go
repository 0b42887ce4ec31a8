package extension

import _ "embed"

// SDK is Boris's shell SDK for extension tools (sdk/tool-sdk.sh): the helper
// functions mcp-bash-framework documents for tools (arguments, results,
// errors, progress, cancellation, logging), written for Boris's host
// contract. The core writes it out at start; its directory becomes MCP_SDK.
//
//go:embed sdk/tool-sdk.sh
var SDK []byte
