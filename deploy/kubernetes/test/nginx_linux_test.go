package test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	appsv1 "k8s.io/api/apps/v1"
)

// TestIngressSnippetInNginx runs the Ingress's routing snippet in real
// nginx, in a location as ingress-nginx puts it (the snippet, then the
// controller's own proxy_pass to the Service's pods), with a DNS server
// that knows the pods' names, and sends it requests carrying session ids
// of both transports, real and made up. One substitution: the pods' port
// (8080) becomes the test backend's loopback port.
func TestIngressSnippetInNginx(t *testing.T) {
	nginx := findProgram("nginx")
	if nginx == "" {
		t.Skip("needs nginx (Debian package nginx, which make test's test/deploy installs)")
	}
	m := render(t)
	ing, _ := ingress(t, m)
	sts := one[*appsv1.StatefulSet](t, m)
	podDomain := fmt.Sprintf(".%s.%s.svc.cluster.local", sts.Spec.ServiceName, sts.Namespace)

	backend := startEcho(t)
	dns := startDNS(t, regexp.MustCompile(`^`+regexp.QuoteMeta(sts.Name)+`-[0-9]+`+regexp.QuoteMeta(podDomain)+`\.$`))
	port := portOf(backend)
	snippet := strings.ReplaceAll(ing.Annotations[snippetKey], ":8080;", ":"+port+";")
	if snippet == ing.Annotations[snippetKey] {
		t.Fatalf("the snippet names no port 8080:\n%s", snippet)
	}
	proxy := startNginx(t, nginx, dns, snippet, backend)

	hex := strings.Repeat("0123456789abcdef", 2)
	pod := func(i int) string { return fmt.Sprintf("%s-%d%s:%s", sts.Name, i, podDomain, port) }
	cases := []struct {
		name, path, header, wantHost string
	}{
		{"session of node 0", "/mcp", sts.Name + "-0." + hex, pod(0)},
		{"session of node 7", "/mcp", sts.Name + "-7." + hex, pod(7)},
		{"2024-11-05 POST", "/sse?sessionId=" + sts.Name + "-2." + hex, "", pod(2)},
		{"no session", "/mcp", "", backend},
		{"another host as the node", "/mcp", "evil.example.com." + hex, backend},
		{"a host after the node", "/mcp", sts.Name + "-1.evil.example.com." + hex, backend},
		{"text after the id", "/mcp", sts.Name + "-1." + hex + ".evil", backend},
		{"hostile query", "/sse?sessionId=evil.example.com." + hex, "", backend},
		{"encoded newline in the query", "/sse?sessionId=" + sts.Name + "-1." + hex + "%0Aevil", "", backend},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host, uri := get(t, proxy, c.path, c.header)
			if host != c.wantHost {
				t.Errorf("Mcp-Session-Id %q, %s: reached %q, want %q", c.header, c.path, host, c.wantHost)
			}
			if uri != c.path {
				t.Errorf("the backend got %q, want the request's own %q", uri, c.path)
			}
		})
	}
	for _, name := range dns.asked() {
		if !strings.HasSuffix(name, podDomain+".") {
			t.Errorf("nginx asked DNS for %q: a session id led it outside the pods' domain", name)
		}
	}
}

// startEcho starts a backend that answers with the Host and the request
// URI it got; it returns its address.
func startEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s\n%s", r.Host, r.RequestURI)
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func get(t *testing.T, proxy, path, session string) (host, uri string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+proxy+path, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("POST %s through nginx: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s through nginx: %s %s", path, resp.Status, body)
	}
	host, uri, _ = strings.Cut(string(body), "\n")
	return host, uri
}

// dnsServer answers A questions for names matching known with 127.0.0.1,
// and NXDOMAIN for anything else, remembering every name asked.
type dnsServer struct {
	addr  string
	mu    sync.Mutex
	names []string
}

func startDNS(t *testing.T, known *regexp.Regexp) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for DNS: %v", err)
	}
	t.Cleanup(func() { pc.Close() })
	d := &dnsServer{addr: pc.LocalAddr().String()}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if out, ok := d.answer(buf[:n], known); ok {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	return d
}

func (d *dnsServer) answer(query []byte, known *regexp.Regexp) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(q.Name.String())
	d.mu.Lock()
	d.names = append(d.names, name)
	d.mu.Unlock()
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RCode: dnsmessage.RCodeSuccess}
	if !known.MatchString(name) {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if rh.RCode == dnsmessage.RCodeSuccess && q.Type == dnsmessage.TypeA {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1},
			dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}})
	}
	out, err := b.Finish()
	return out, err == nil
}

func (d *dnsServer) asked() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.names...)
}

// startNginx runs nginx with the snippet in its one location, followed by
// the proxy_pass ingress-nginx writes (here straight to the backend), and
// returns its address once it answers.
func startNginx(t *testing.T, nginx string, dns *dnsServer, snippet, backend string) string {
	t.Helper()
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // the temp directory is not readable by nobody
	}
	var temps strings.Builder
	for _, kind := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&temps, "    %s_temp_path %s;\n", kind, filepath.Join(dir, "tmp-"+kind))
	}
	conf := fmt.Sprintf(`%s
worker_processes 1;
pid %[2]s/nginx.pid;
events { worker_connections 64; }
http {
    access_log off;
%[3]s    resolver %[4]s valid=1s ipv6=off;
    server {
        listen %[5]s;
        location / {
%[6]s
            proxy_pass http://%[7]s;
        }
    }
}
`, user, dir, temps.String(), dns.addr, addr, snippet, backend)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	errLog := filepath.Join(dir, "error.log")
	cmd := exec.Command(nginx, "-p", dir+"/", "-c", confPath, "-e", errLog, "-g", "daemon off;")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := exec.Command(nginx, "-t", "-p", dir+"/", "-c", confPath, "-e", errLog).CombinedOutput()
	if err != nil {
		t.Fatalf("nginx -t refuses the snippet: %v\n%s\n%s", err, out, conf)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(errLog)
			t.Logf("nginx error.log:\n%s", b)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nginx does not listen on %s", addr)
	return ""
}

func findProgram(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}
