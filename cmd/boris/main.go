// Command boris is the Boris MCP server over stdio. See core.Main.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mjkoo/boris/core"
	"github.com/mjkoo/boris/internal/flagenv"
)

func main() {
	err := core.Main(context.Background(), os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)
	if code := flagenv.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "boris: %v\n", err)
		os.Exit(code)
	}
}
