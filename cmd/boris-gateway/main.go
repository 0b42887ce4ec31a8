// Command boris-gateway serves Boris over MCP Streamable HTTP, one boris
// core per session. See gateway.Main.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/mjkoo/boris/gateway"
	"github.com/mjkoo/boris/internal/flagenv"
)

func main() {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(gatewayProcs(runtime.GOMAXPROCS(0)))
	}
	err := gateway.Main(context.Background(), os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	if code := flagenv.ExitCode(err); code != 0 {
		fmt.Fprintf(os.Stderr, "boris-gateway: %v\n", err)
		os.Exit(code)
	}
}

// gatewayProcs is how many CPUs the gateway's Go code runs on at once, of
// the cpus Go would use: one per four, at least one. The gateway parses
// HTTP and copies bytes between sockets and pipes; its cores do the work.
// Each CPU more lets the runtime wake an idle thread for every hand-off
// between goroutines (a request's handler and its session's router), so
// a small call crosses CPUs and waits for one to wake, and the spinning
// threads take CPU from the cores. With one on a 2-CPU host, make
// bench-gateway measured a hop about 40 µs shorter and more calls per
// second, not fewer. GOMAXPROCS in the environment overrides it.
func gatewayProcs(cpus int) int { return max(1, cpus/4) }
