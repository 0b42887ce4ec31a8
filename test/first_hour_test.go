package test

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestGatewayStartMessagesNameTheFix: what a newcomer gets wrong on the
// first start makes the gateway stop saying how to do it right: a core
// flag given to the gateway names "--", an address another program holds
// names --listen and make run's PORT=.
func TestGatewayStartMessagesNameTheFix(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := realTempDir(t)
	tests := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"core flag before --", []string{"--listen", "127.0.0.1:0", "--workdir", dir}, []string{"unknown flag --workdir", "give it after --", "-- --workdir"}},
		{"core flag with =", []string{"--listen", "127.0.0.1:0", "--allow-dir=" + dir}, []string{"unknown flag --allow-dir", "-- --allow-dir"}},
		{"address in use", []string{"--listen", held.Addr().String(), "--auth", "none", "--cgroups", "off", "--", "--workdir", dir}, []string{"address already in use", "--listen", "PORT=8081 make run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, gatewayBin(t), tt.args...)
			cmd.Env = cleanEnv("HOME=" + realTempDir(t))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("boris-gateway %v: got %v\n%s\nwant it to stop with an error", tt.args, err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("boris-gateway %v: stderr\n%s\nwant %q", tt.args, out, w)
				}
			}
		})
	}
}

// TestPrintConfigAuthNone: with RUN_FLAGS='--auth none' make run's banner
// does not tell the user to log in with a token nobody is given.
func TestPrintConfigAuthNone(t *testing.T) {
	for _, flags := range []string{"--auth none", "--auth=none --max-sessions 4"} {
		out, err := exec.Command("../scripts/print-config.sh", borisBin, "/srv/project", "9000", flags).CombinedOutput()
		if err != nil {
			t.Fatalf("print-config.sh: %v\n%s", err, out)
		}
		for _, unwanted := range []string{"token", "TOKEN"} {
			if strings.Contains(string(out), unwanted) {
				t.Errorf("print-config.sh with %q:\n%s\nwant no mention of a %s", flags, out, unwanted)
			}
		}
		for _, want := range []string{"http://127.0.0.1:9000/dashboard", "curl http://127.0.0.1:9000/metrics", "--auth none"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("print-config.sh with %q:\n%s\nwant %q", flags, out, want)
			}
		}
	}
}
