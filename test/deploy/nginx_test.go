package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const nginxConfPath = "deploy/nginx/boris.conf"

// TestNginx runs real nginx with deploy/nginx/boris.conf in front of a real
// boris-gateway and drives an MCP session through it over HTTPS.
//
// The file is used as shipped, except for these substitutions (in order):
//   - the certificate and key paths -> the test's self-signed pair;
//   - mcp.example.com -> mcp.boris.test (server_name);
//   - 127.0.0.1:8080 (the upstream) -> the gateway's address;
//   - "listen 443 ..." and "listen 80" -> loopback ports, and the
//     "listen [::]:..." lines dropped: the test binds nothing but loopback.
//
// nginx.conf's main context (events, pid, logs, temp paths under a temp
// directory) is the test's, as /etc/nginx/nginx.conf is the system's; the
// deploy file is included in its http {} block, as sites-enabled/ is.
func TestNginx(t *testing.T) {
	nginx := ensureInstalled(t, "nginx", "nginx")
	dir := t.TempDir()
	certs := makeCert(t, dir)
	proxyAddr, redirectAddr := proxyAddress(t), proxyAddress(t)
	gw := startGateway(t, "https://"+testHost+":"+portOf(proxyAddr)+"/mcp")

	conf := substitute(t, nginxConfPath, deployFile(t, nginxConfPath), [][2]string{
		{"/etc/letsencrypt/live/mcp.example.com/fullchain.pem", certs.cert},
		{"/etc/letsencrypt/live/mcp.example.com/privkey.pem", certs.key},
		{"mcp.example.com", testHost},
		{"127.0.0.1:8080", gw.addr},
		{"listen 443 ", "listen " + proxyAddr + " "},
		{"listen 80;", "listen " + redirectAddr + ";"},
	})
	conf = regexp.MustCompile(`(?m)^\s*listen \[::\]:.*$`).ReplaceAllString(conf, "")
	site := filepath.Join(dir, "boris.conf")
	writeText(t, site, conf)
	main := filepath.Join(dir, "nginx.conf")
	writeText(t, main, nginxMain(dir, site))

	cmd := exec.Command(nginx, "-p", dir+"/", "-c", main, "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;")
	p := startProc(t, "nginx", cmd)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx error.log:\n%s", b)
		}
	})
	testThroughProxy(t, p, proxyAddr, certs, gw)
}

// nginxMain is the main context the deploy file expects around it. As root,
// workers run as root too: the temp directory is not readable by nobody.
func nginxMain(dir, site string) string {
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	var temps strings.Builder
	for _, kind := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&temps, "    %s_temp_path %s;\n", kind, filepath.Join(dir, "tmp-"+kind))
	}
	return fmt.Sprintf(`%s
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 256; }
http {
    access_log %[2]s/access.log;
%[3]s    include %[4]s;
}
`, user, dir, temps.String(), site)
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
