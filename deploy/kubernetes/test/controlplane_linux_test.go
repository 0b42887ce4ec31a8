package test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// controlPlaneEnv names the directory holding kube-apiserver and etcd,
// which `make test-k8s` builds (build-controlplane.sh) and sets.
const controlPlaneEnv = "BORIS_K8S_BIN"

// controlPlane is a real etcd and kube-apiserver on loopback ports, for
// one test: started by startControlPlane, stopped (their process groups
// killed and reaped) when the test ends.
type controlPlane struct {
	url    string
	client *http.Client
}

func startControlPlane(t *testing.T) *controlPlane {
	t.Helper()
	bin := os.Getenv(controlPlaneEnv)
	if bin == "" {
		t.Skipf("needs kube-apiserver and etcd: `make test-k8s` builds them (about 10 minutes the first time) and sets %s", controlPlaneEnv)
	}
	dir := t.TempDir()
	p := newPKI(t, dir)
	etcdURL := startEtcd(t, bin, dir)
	port := freePort(t)
	startProcess(t, filepath.Join(bin, "kube-apiserver"), filepath.Join(dir, "kube-apiserver.log"),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		// no kubernetes Service endpoint to keep: its reconciler refuses a loopback address
		"--endpoint-reconciler-type=none",
		"--tls-cert-file="+p.serverCert, "--tls-private-key-file="+p.serverKey,
		"--client-ca-file="+p.caCert, "--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+p.serviceAcct, "--service-account-signing-key-file="+p.serviceAccountKey,
		"--service-cluster-ip-range=10.96.0.0/16", "--cert-dir="+filepath.Join(dir, "certs"),
	)
	cp := &controlPlane{url: "https://127.0.0.1:" + strconv.Itoa(port), client: adminClient(t, p)}
	cp.waitReady(t, filepath.Join(dir, "kube-apiserver.log"))
	return cp
}

func startEtcd(t *testing.T, bin, dir string) string {
	t.Helper()
	client, peer := "http://127.0.0.1:"+strconv.Itoa(freePort(t)), "http://127.0.0.1:"+strconv.Itoa(freePort(t))
	startProcess(t, filepath.Join(bin, "etcd"), filepath.Join(dir, "etcd.log"),
		"--name=boris-test", "--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=boris-test="+peer, "--unsafe-no-fsync",
	)
	return client
}

// startProcess starts a server in a process group of its own, its output
// in logPath, killed with its group and reaped when the test ends (and
// killed by the kernel if the test binary dies first).
func startProcess(t *testing.T, path, logPath string, args ...string) {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("create %s: %v", logPath, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		logFile.Close()
	})
}

func adminClient(t *testing.T, p pki) *http.Client {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(p.clientCert, p.clientKey)
	if err != nil {
		t.Fatalf("load the admin certificate: %v", err)
	}
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		t.Fatalf("read the CA: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}}},
	}
}

// waitReady waits until /readyz answers 200, for up to three minutes (the
// first start on a busy machine compiles nothing but does a lot).
func (cp *controlPlane) waitReady(t *testing.T, logPath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var last string
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cp.url+"/readyz", nil)
		resp, err := cp.client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		time.Sleep(500 * time.Millisecond)
	}
	out, _ := os.ReadFile(logPath)
	t.Fatalf("kube-apiserver not ready after 3 minutes (last: %s); its log ends:\n%s", last, tail(out, 4000))
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
