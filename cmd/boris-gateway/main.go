// Command boris-gateway serves Boris over MCP Streamable HTTP, one boris
// core per session. See gateway.Main.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mjkoo/boris/gateway"
	"github.com/mjkoo/boris/internal/flagenv"
)

func main() {
	err := gateway.Main(context.Background(), os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	if code := flagenv.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "boris-gateway: %v\n", err)
		os.Exit(code)
	}
}
