package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjkoo/boris/test/bench/benchkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The network part (issue 29): what a session's namespaces (--sandbox-net
// none and proxy) add to a session create and a bash call, against the
// same gateway with the host's network; and a 100 MB download made by
// curl inside a session, directly (net host) and through the egress proxy
// (net proxy: the session's bridge, the proxy's Unix socket, then TCP),
// both as plain HTTP (forwarded by the proxy) and through a CONNECT
// tunnel (as HTTPS goes).

// The targets for the namespaces. Reported, never enforced.
const (
	netCreateTarget   = 3 * time.Millisecond
	netBashTarget     = 500 * time.Microsecond
	downloadTargetPct = 10.0 // the proxy's slowdown of a download, in percent
)

// Download settings.
const (
	downloadName = "download.bench.test" // the proxy gateway's pinned name for the server
	downloadSize = 100 << 20
	downloadRuns = 5 // of each way, alternating
)

// downloadResult is the median curl time_total of each way.
type downloadResult struct {
	Direct, Proxy, Tunnel time.Duration
	Skipped               string // why it was not measured, or ""
}

// measureDownload runs the downloads on the warm sessions of the host and
// proxy gateways.
func measureDownload(ctx context.Context, eps []*endpoint, logw io.Writer) (*downloadResult, error) {
	if _, err := exec.LookPath("curl"); err != nil {
		return &downloadResult{Skipped: "curl is not installed"}, nil
	}
	host, proxy := endpointOf(eps, setup{sandbox: true, cgroups: true}), endpointOf(eps, netSetup("proxy"))
	if host == nil || proxy == nil {
		return &downloadResult{Skipped: "the host or proxy configuration did not run"}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("download server: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(serveZeros)}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	curl := "curl -sS -o /dev/null -w '%{time_total} %{size_download}' "
	ways := []struct {
		ep      *endpoint
		command string
		times   *[]time.Duration
	}{
		{host, curl + "http://127.0.0.1:" + port + "/", new([]time.Duration)},
		{proxy, curl + "http://" + downloadName + ":" + port + "/", new([]time.Duration)},
		{proxy, curl + "--proxytunnel http://" + downloadName + ":" + port + "/", new([]time.Duration)},
	}
	fmt.Fprintf(logw, "%s: %d MB downloads, %d of each way\n", prog, downloadSize>>20, downloadRuns)
	for i := range downloadRuns + 1 { // the first round warms up
		for _, w := range ways {
			d, err := curlOnce(ctx, w.ep, w.command)
			if err != nil {
				return nil, w.ep.fail(fmt.Errorf("download: %w", err))
			}
			if i > 0 {
				*w.times = append(*w.times, d)
			}
		}
	}
	return &downloadResult{Direct: median(*ways[0].times), Proxy: median(*ways[1].times), Tunnel: median(*ways[2].times)}, nil
}

// serveZeros answers downloadSize zero bytes.
func serveZeros(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Length", strconv.Itoa(downloadSize))
	buf := make([]byte, 1<<20)
	for range downloadSize >> 20 {
		if _, err := w.Write(buf); err != nil {
			return
		}
	}
}

// curlOnce runs command (a curl printing time_total and size_download) on
// ep's warm session and returns time_total.
func curlOnce(ctx context.Context, ep *endpoint, command string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := ep.warm.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command}})
	if err != nil {
		return 0, err
	}
	text := benchkit.ResultText(res)
	out, _, _ := strings.Cut(strings.TrimPrefix(text, "stdout:\n"), "\n")
	f := strings.Fields(out)
	if res.IsError || len(f) != 2 || f[1] != strconv.Itoa(downloadSize) {
		return 0, fmt.Errorf("curl: got %q, want time_total and %d bytes", benchkit.Clip(text), downloadSize)
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("curl time_total %q: %w", f[0], err)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func endpointOf(eps []*endpoint, s setup) *endpoint {
	for _, ep := range eps {
		if ep.setup == s {
			return ep
		}
	}
	return nil
}

// slowdown is how much longer d takes than base, in percent.
func slowdown(d, base time.Duration) float64 {
	if base == 0 {
		return 0
	}
	return (float64(d)/float64(base) - 1) * 100
}

// mbps is downloadSize over d in MB/s.
func mbps(d time.Duration) float64 {
	if d == 0 {
		return 0
	}
	return float64(downloadSize) / (1 << 20) / d.Seconds()
}

// netTargets evaluates the namespaces' targets: none's and proxy's added
// session create and bash call p50 against host, and the proxy's download
// slowdown (the slower of its two ways).
func netTargets(r results) []benchkit.Target {
	host := r.of(setup{sandbox: true, cgroups: true})
	var out []benchkit.Target
	for _, net := range []string{"none", "proxy"} {
		c := r.of(netSetup(net))
		if c.bash.N == 0 {
			continue
		}
		create, bash := c.create.P50-host.create.P50, c.bash.P50-host.bash.P50
		out = append(out,
			benchkit.Target{Name: "net " + net + "'s added session create p50", Value: benchkit.Ms(create), Limit: benchkit.Ms(netCreateTarget), Unit: "ms", Met: create <= netCreateTarget},
			benchkit.Target{Name: "net " + net + "'s added bash call p50", Value: benchkit.Ms(bash), Limit: benchkit.Ms(netBashTarget), Unit: "ms", Met: bash <= netBashTarget})
	}
	if d := r.download; d != nil && d.Skipped == "" {
		worst := max(slowdown(d.Proxy, d.Direct), slowdown(d.Tunnel, d.Direct))
		out = append(out, benchkit.Target{Name: "proxy's download slowdown (worse of plain HTTP and CONNECT)", Value: worst, Limit: downloadTargetPct, Unit: "%", Met: worst <= downloadTargetPct})
	}
	return out
}

// writeNet prints the network part, when it ran.
func writeNet(w io.Writer, r results) {
	ts := netTargets(r)
	if len(ts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nnamespaces per session (gateway, sandbox and cgroups on): --sandbox-net none and proxy against host\n")
	for _, t := range ts {
		fmt.Fprintf(w, "%s: %+.3f %s (target ≤ %g %s): %s\n", t.Name, t.Value, t.Unit, t.Limit, t.Unit, metWord(t.Met))
	}
	d := r.download
	switch {
	case d == nil:
	case d.Skipped != "":
		fmt.Fprintf(w, "%d MB download: not measured: %s\n", downloadSize>>20, d.Skipped)
	default:
		fmt.Fprintf(w, "%d MB download by curl in a session, median of %d: direct (net host) %.1f ms, %.0f MB/s; "+
			"through the egress proxy, plain HTTP %.1f ms, %.0f MB/s (%+.1f%%); CONNECT tunnel %.1f ms, %.0f MB/s (%+.1f%%)\n",
			downloadSize>>20, downloadRuns, benchkit.Ms(d.Direct), mbps(d.Direct),
			benchkit.Ms(d.Proxy), mbps(d.Proxy), slowdown(d.Proxy, d.Direct),
			benchkit.Ms(d.Tunnel), mbps(d.Tunnel), slowdown(d.Tunnel, d.Direct))
	}
}
