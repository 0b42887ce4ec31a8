// Package wire provides the gateway's reading and writing of MCP messages
// on the wire, as pure functions over bytes and HTTP: decoding a client's
// JSON-RPC message as go-sdk reads it (Decode, and the ids, progress tokens
// and tool names it names), scanning a core's message for routing without
// decoding it (Peek, PeekHead, Member, WithMember), the request headers of
// the 2026-07-28 revision (CheckHeaders, DecodeHeader, the x-mcp-header
// parameters of a tool's schema), and writing a response as JSON or as a
// text/event-stream (Reply, SSEWriter, WriteParts, WriteError).
//
// It holds no state and knows nothing of sessions or cores. It may import
// the standard library, go-sdk's jsonrpc and mcp packages and
// internal/jsonscan; never package gateway or another of its packages
// (see the gateway's TestImports).
package wire
