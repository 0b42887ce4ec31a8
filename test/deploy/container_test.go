package deploy

import (
	"encoding/json"
	"net"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const containerfilePath = "deploy/Containerfile"

// instruction is one Containerfile instruction, continuations joined.
type instruction struct {
	cmd  string // upper case: FROM, COPY, ...
	args string
}

func parseContainerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	var cur string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		cur += trimmed
		cmd, args, _ := strings.Cut(cur, " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur = ""
	}
	return out
}

// releaseLayout is what the root of an unpacked release archive holds,
// according to goreleaser.yaml: the binaries and the archives' files.
// TestReleaseSnapshot checks the same against real archives.
func releaseLayout(t *testing.T) []string {
	t.Helper()
	cfg := deployFile(t, "goreleaser.yaml")
	var layout []string
	for _, m := range regexp.MustCompile(`(?m)^\s+binary:\s*(\S+)\s*$`).FindAllStringSubmatch(cfg, -1) {
		layout = append(layout, m[1])
	}
	_, files, ok := strings.Cut(cfg, "\n    files:\n")
	if !ok {
		t.Fatal("goreleaser.yaml: no archives files: list")
	}
	for _, line := range strings.Split(files, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue
		}
		entry, ok := strings.CutPrefix(trimmed, "- ")
		if !ok || !strings.HasPrefix(line, "      ") {
			break
		}
		layout = append(layout, strings.Trim(entry, `"'`))
	}
	return layout
}

// TestContainerfile checks the container file against the release layout it
// is built from and the settings of the binaries it runs; no container
// runtime is needed (docker build is the operator's step).
func TestContainerfile(t *testing.T) {
	ins := parseContainerfile(t, deployFile(t, containerfilePath))
	layout := releaseLayout(t)
	gwEnv, coreEnv := envNames(settings(t, gatewayBin)), envNames(settings(t, borisBin))

	installed := map[string]string{} // binary name -> path in the image
	var entrypoint []string
	env := map[string]string{}
	var from, user string
	for _, in := range ins {
		switch in.cmd {
		case "FROM":
			from = strings.Fields(in.args)[0]
		case "COPY":
			srcs := strings.Fields(in.args)
			dest := srcs[len(srcs)-1]
			for _, src := range srcs[:len(srcs)-1] {
				if strings.HasPrefix(src, "--") {
					t.Errorf("COPY %s: flags such as %s assume another build stage; the image is built from a release archive", in.args, src)
					continue
				}
				if !slices.Contains(layout, src) {
					t.Errorf("COPY source %s is not in a release archive (goreleaser.yaml ships %v)", src, layout)
				}
				installed[src] = path.Join(dest, src)
			}
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil {
				t.Errorf("ENTRYPOINT %s: want the exec (JSON array) form, so signals reach the process: %v", in.args, err)
			}
		case "USER":
			user = in.args
		}
	}

	// The core's bash tool runs /bin/bash (or /bin/sh): no shell-less base.
	if from == "" || from == "scratch" || strings.Contains(from, "distroless") {
		t.Errorf("FROM %q: the base image needs /bin/bash for the bash tool", from)
	}
	if user == "" || user == "root" || user == "0" {
		t.Errorf("USER %q: want an unprivileged user, agents' commands run as it", user)
	}
	for _, bin := range []string{"boris", "boris-gateway"} {
		if installed[bin] == "" {
			t.Errorf("%s is not copied into the image", bin)
		}
	}
	if !slices.Contains(entrypoint, installed["boris-gateway"]) {
		t.Errorf("ENTRYPOINT %v does not run %s, where COPY put the gateway", entrypoint, installed["boris-gateway"])
	}
	if core, ok := env["BORIS_GATEWAY_CORE"]; ok && core != installed["boris"] {
		t.Errorf("BORIS_GATEWAY_CORE=%s, but COPY put boris at %s", core, installed["boris"])
	}
	for k := range env {
		known := gwEnv[k] || (!strings.HasPrefix(k, "BORIS_GATEWAY_") && coreEnv[k])
		if strings.HasPrefix(k, "BORIS_") && !known {
			t.Errorf("ENV %s is not a boris-gateway or boris setting", k)
		}
	}
	// The default, 127.0.0.1:8080, is unreachable through a published port.
	listen := env["BORIS_GATEWAY_LISTEN"]
	if host, _, err := net.SplitHostPort(listen); err != nil || !slices.Contains([]string{"", "0.0.0.0", "::"}, host) {
		t.Errorf("BORIS_GATEWAY_LISTEN=%q: inside a container the gateway must listen on all interfaces", listen)
	}
}
