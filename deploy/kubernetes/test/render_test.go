package test

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/mjkoo/boris/core/sandbox"
)

// nodeIDPattern is what boris-gateway's --node-id accepts
// (gateway/config.go): every pod name must be a valid node id.
var nodeIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// TestManifestsRender renders deploy/kubernetes and decodes every object
// strictly into its API type; the other tests check what it holds.
func TestManifestsRender(t *testing.T) {
	m := render(t)
	kinds := map[string]int{}
	for _, o := range m.objects {
		kinds[fmt.Sprintf("%T", o)]++
	}
	want := map[string]int{
		"*v1.Namespace": 1, "*v1.ConfigMap": 1, "*v1.Service": 2, "*v1.StatefulSet": 1,
		"*v1.Ingress": 1, "*v1.PodDisruptionBudget": 1,
	}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("rendered %d of %s, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	ns := one[*corev1.Namespace](t, m).Name
	for _, o := range m.objects {
		if _, isNS := o.(*corev1.Namespace); isNS {
			continue
		}
		meta := o.(interface{ GetNamespace() string })
		if got := meta.GetNamespace(); got != ns {
			t.Errorf("%T in namespace %q, want %q", o, got, ns)
		}
	}
}

// TestPodNameIsNodeID: each pod's name is its gateway's --node-id, a
// valid one, and the headless Service gives each pod the DNS name the
// ingress routes sessions to.
func TestPodNameIsNodeID(t *testing.T) {
	m := render(t)
	sts := one[*appsv1.StatefulSet](t, m)
	c := gatewayContainer(t, sts)
	node, err := envNamed(c, "BORIS_GATEWAY_NODE_ID")
	if err != nil {
		t.Fatal(err)
	}
	if node.ValueFrom == nil || node.ValueFrom.FieldRef == nil || node.ValueFrom.FieldRef.FieldPath != "metadata.name" {
		t.Errorf("BORIS_GATEWAY_NODE_ID = %+v, want the pod's metadata.name", node)
	}
	for i := range int(*sts.Spec.Replicas) + 10 {
		if pod := fmt.Sprintf("%s-%d", sts.Name, i); !nodeIDPattern.MatchString(pod) {
			t.Errorf("pod name %q is not a valid --node-id", pod)
		}
	}
	headless := service(t, m, sts.Spec.ServiceName)
	if headless.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("StatefulSet's Service %s has clusterIP %q, want None (headless)", headless.Name, headless.Spec.ClusterIP)
	}
	if !headless.Spec.PublishNotReadyAddresses {
		t.Errorf("headless Service %s hides draining pods: their sessions would get 502, not 404", headless.Name)
	}
	if !selects(headless.Spec.Selector, sts.Spec.Template.Labels) {
		t.Errorf("headless Service selects %v, not the pods (%v)", headless.Spec.Selector, sts.Spec.Template.Labels)
	}
}

// TestProbesAndDrain: readiness on /healthz (503 from a drain's first
// moment), liveness not on it, and a grace period covering the drain.
func TestProbesAndDrain(t *testing.T) {
	m := render(t)
	sts := one[*appsv1.StatefulSet](t, m)
	c := gatewayContainer(t, sts)
	env := configEnv(t, m)
	_, port, err := net.SplitHostPort(env["BORIS_GATEWAY_LISTEN"])
	if err != nil {
		t.Fatalf("BORIS_GATEWAY_LISTEN %q: %v", env["BORIS_GATEWAY_LISTEN"], err)
	}
	r := c.ReadinessProbe
	if r == nil || r.HTTPGet == nil || r.HTTPGet.Path != "/healthz" {
		t.Fatalf("readiness probe %+v, want GET /healthz", r)
	}
	if got := containerPort(t, c, r.HTTPGet.Port.String()); strconv.Itoa(int(got)) != port {
		t.Errorf("readiness probes port %d, the gateway listens on %s", got, port)
	}
	if l := c.LivenessProbe; l != nil && l.HTTPGet != nil && l.HTTPGet.Path == "/healthz" {
		t.Errorf("liveness probe on /healthz: a draining pod (503) would be killed mid-drain")
	}
	linger := duration(t, env, "BORIS_GATEWAY_DRAIN_LINGER")
	shutdown := duration(t, env, "BORIS_GATEWAY_SHUTDOWN_TIMEOUT")
	// The drain (gateway/main.go serve and lingerDrain): requests in
	// flight finish for up to the shutdown timeout, the sessions end and
	// their ids answer 404 for the linger, the server shuts down (up to
	// the shutdown timeout again), then each core gets its kill grace.
	const coreKillGrace = 5 * time.Second // a core's SIGTERM-to-SIGKILL grace (gateway/launch)
	need := shutdown + linger + shutdown + coreKillGrace
	grace := time.Duration(*sts.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
	if grace < need {
		t.Errorf("terminationGracePeriodSeconds %v, want at least %v (shutdown %v + linger %v + shutdown %v + %v)", grace, need, shutdown, linger, shutdown, coreKillGrace)
	}
}

// TestSecretsNotInlined: no Secret in the manifests, no credential in the
// ConfigMap or in a literal variable, tokens from a Secret's file where no
// command's sandbox may read it, the board's URL from a Secret.
func TestSecretsNotInlined(t *testing.T) {
	m := render(t)
	if n := len(each[*corev1.Secret](m)); n != 0 {
		t.Errorf("the manifests hold %d Secrets: secrets are the operator's, created in the cluster", n)
	}
	env := configEnv(t, m)
	for _, k := range []string{"BORIS_GATEWAY_TOKENS", "BORIS_GATEWAY_TASKS_DB", "BORIS_TASKS_DB", "BORIS_GATEWAY_JWT_SECRET_FILE"} {
		if _, ok := env[k]; ok {
			t.Errorf("ConfigMap sets %s: it belongs in a Secret", k)
		}
	}
	sts := one[*appsv1.StatefulSet](t, m)
	c := gatewayContainer(t, sts)
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			t.Errorf("variable %s has a literal value in the StatefulSet", e.Name)
		}
	}
	board, err := envNamed(c, "BORIS_GATEWAY_TASKS_DB")
	if err != nil {
		t.Fatal(err)
	}
	if board.ValueFrom.SecretKeyRef == nil {
		t.Errorf("BORIS_GATEWAY_TASKS_DB comes from %+v, want a Secret", board.ValueFrom)
	}
	tokenFile := env["BORIS_GATEWAY_TOKEN_FILE"]
	mount := secretMountOf(t, sts, c, tokenFile)
	for _, dir := range sandbox.SystemReadDirs {
		if within(mount, dir) {
			t.Errorf("tokens mounted at %s, under %s, which every command may read", mount, dir)
		}
	}
	if sts.Spec.Template.Spec.AutomountServiceAccountToken == nil || *sts.Spec.Template.Spec.AutomountServiceAccountToken {
		t.Errorf("pods get a Kubernetes API token: agents' commands run in them")
	}
}

// TestSecurityContext: what docs/kubernetes.md says the sandbox needs,
// and nothing more.
func TestSecurityContext(t *testing.T) {
	m := render(t)
	sts := one[*appsv1.StatefulSet](t, m)
	pod := sts.Spec.Template.Spec
	c := gatewayContainer(t, sts)
	psc, csc := pod.SecurityContext, c.SecurityContext
	uid := containerfileUID(t)
	checks := []struct {
		what string
		ok   bool
	}{
		{"hostUsers: false (the pod's own user namespace)", pod.HostUsers != nil && !*pod.HostUsers},
		{"enableServiceLinks: false (no BORIS_* variables from Services)", pod.EnableServiceLinks != nil && !*pod.EnableServiceLinks},
		{"runAsUser is the Containerfile's uid " + uid, psc.RunAsUser != nil && strconv.FormatInt(*psc.RunAsUser, 10) == uid},
		{"runAsNonRoot", psc.RunAsNonRoot != nil && *psc.RunAsNonRoot},
		{"seccomp Unconfined", psc.SeccompProfile != nil && psc.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined},
		{"AppArmor Unconfined", psc.AppArmorProfile != nil && psc.AppArmorProfile.Type == corev1.AppArmorProfileTypeUnconfined},
		{"not privileged", csc.Privileged != nil && !*csc.Privileged},
		{"allowPrivilegeEscalation: false (no_new_privs)", csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation},
		{"every capability dropped", csc.Capabilities != nil && len(csc.Capabilities.Drop) == 1 && csc.Capabilities.Drop[0] == "ALL"},
		{"no capability added", csc.Capabilities != nil && len(csc.Capabilities.Add) == 0},
		{"procMount Unmasked", csc.ProcMount != nil && *csc.ProcMount == corev1.UnmaskedProcMount},
		{"read-only root file system", csc.ReadOnlyRootFilesystem != nil && *csc.ReadOnlyRootFilesystem},
		{"no host network, PID or IPC", !pod.HostNetwork && !pod.HostPID && !pod.HostIPC},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("security context: want %s", c.what)
		}
	}
	env := configEnv(t, m)
	if env["BORIS_SANDBOX"] != "required" {
		t.Errorf("BORIS_SANDBOX = %q, want required: a pod that cannot confine commands must not start", env["BORIS_SANDBOX"])
	}
	if env["BORIS_GATEWAY_SANDBOX_NET"] == "host" {
		t.Errorf("BORIS_GATEWAY_SANDBOX_NET = host: sessions would share the pod's network")
	}
}

// TestDisruptionBudget: the budget covers the gateway's pods, one at a time.
func TestDisruptionBudget(t *testing.T) {
	m := render(t)
	sts := one[*appsv1.StatefulSet](t, m)
	pdb := one[*policyv1.PodDisruptionBudget](t, m)
	sel := labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels)
	if len(pdb.Spec.Selector.MatchLabels) == 0 || !sel.Matches(labels.Set(sts.Spec.Template.Labels)) {
		t.Errorf("PodDisruptionBudget selects %v, not the pods (%v)", pdb.Spec.Selector, sts.Spec.Template.Labels)
	}
	if mu := pdb.Spec.MaxUnavailable; mu == nil || mu.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget maxUnavailable %v, want 1", mu)
	}
}

func service(t *testing.T, m manifests, name string) *corev1.Service {
	t.Helper()
	for _, s := range each[*corev1.Service](m) {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no Service %q", name)
	return nil
}

func selects(selector, podLabels map[string]string) bool {
	return len(selector) > 0 && labels.SelectorFromSet(selector).Matches(labels.Set(podLabels))
}

func containerPort(t *testing.T, c corev1.Container, nameOrNumber string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == nameOrNumber || strconv.Itoa(int(p.ContainerPort)) == nameOrNumber {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port %q", c.Name, nameOrNumber)
	return 0
}

func duration(t *testing.T, env map[string]string, key string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(env[key])
	if err != nil {
		t.Fatalf("%s = %q: %v", key, env[key], err)
	}
	return d
}

// secretMountOf returns where the container mounts the Secret volume that
// holds file, failing unless file lies in such a mount.
func secretMountOf(t *testing.T, sts *appsv1.StatefulSet, c corev1.Container, file string) string {
	t.Helper()
	secrets := map[string]bool{}
	for _, v := range sts.Spec.Template.Spec.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = true
		}
	}
	for _, vm := range c.VolumeMounts {
		if secrets[vm.Name] && within(file, vm.MountPath) {
			return vm.MountPath
		}
	}
	t.Fatalf("token file %q is in no Secret volume's mount", file)
	return ""
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// ingress returns the Ingress and its backend Service.
func ingress(t *testing.T, m manifests) (*networkingv1.Ingress, *corev1.Service) {
	t.Helper()
	ing := one[*networkingv1.Ingress](t, m)
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].HTTP == nil || len(ing.Spec.Rules[0].HTTP.Paths) != 1 {
		t.Fatalf("Ingress has rules %+v, want one host with one path", ing.Spec.Rules)
	}
	b := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service
	return ing, service(t, m, b.Name)
}
