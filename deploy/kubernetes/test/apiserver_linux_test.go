package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// resourcePaths are where the API serves each kind the deployment ships
// (namespaced ones under namespaces/NS/).
var resourcePaths = map[string]struct {
	group, plural string
	namespaced    bool
}{
	"Namespace":           {"api/v1", "namespaces", false},
	"ConfigMap":           {"api/v1", "configmaps", true},
	"Service":             {"api/v1", "services", true},
	"StatefulSet":         {"apis/apps/v1", "statefulsets", true},
	"Ingress":             {"apis/networking.k8s.io/v1", "ingresses", true},
	"PodDisruptionBudget": {"apis/policy/v1", "poddisruptionbudgets", true},
}

// applyResult is the API server's answer to an apply.
type applyResult struct {
	status   int
	body     []byte
	warnings []string
}

// apply sends one object as a server-side apply, with strict field
// validation (an unknown or duplicated field is an error, not a
// warning); dryRun leaves the cluster as it was.
func (cp *controlPlane) apply(t *testing.T, manifest []byte, dryRun bool) applyResult {
	t.Helper()
	var meta struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, Namespace string
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(manifest, &meta); err != nil {
		t.Fatalf("read kind and name: %v", err)
	}
	rp, ok := resourcePaths[meta.Kind]
	if !ok {
		t.Fatalf("no API path known for kind %s", meta.Kind)
	}
	path := "/" + rp.group + "/"
	if rp.namespaced {
		path += "namespaces/" + meta.Metadata.Namespace + "/"
	}
	q := url.Values{"fieldManager": {"boris-test"}, "fieldValidation": {"Strict"}, "force": {"true"}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	u := cp.url + path + rp.plural + "/" + meta.Metadata.Name + "?" + q.Encode()
	req, err := http.NewRequest(http.MethodPatch, u, bytes.NewReader(manifest))
	if err != nil {
		t.Fatalf("request %s: %v", u, err)
	}
	req.Header.Set("Content-Type", "application/apply-patch+yaml")
	resp, err := cp.client.Do(req)
	if err != nil {
		t.Fatalf("apply %s %s: %v", meta.Kind, meta.Metadata.Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer to %s %s: %v", meta.Kind, meta.Metadata.Name, err)
	}
	return applyResult{status: resp.StatusCode, body: body, warnings: resp.Header.Values("Warning")}
}

// TestAPIServerAcceptsManifests: a real kube-apiserver, backed by a real
// etcd, accepts every rendered object by server-side dry-run apply with
// strict field validation, keeps the fields the sandbox depends on (a
// field of a disabled feature would be dropped silently), and refuses the
// StatefulSet when its unmasked /proc lacks the pod's user namespace.
func TestAPIServerAcceptsManifests(t *testing.T) {
	cp := startControlPlane(t)
	m := render(t)
	// The namespace itself, dry-run, then for real: the namespaced
	// objects' dry runs need it to exist.
	for i, obj := range m.objects {
		if _, ok := obj.(*corev1.Namespace); ok {
			mustAccept(t, "Namespace (dry run)", cp.apply(t, m.yaml[i], true))
			mustAccept(t, "Namespace", cp.apply(t, m.yaml[i], false))
		}
	}
	for i, obj := range m.objects {
		if _, ok := obj.(*corev1.Namespace); ok {
			continue
		}
		name := fmt.Sprintf("%T", obj)
		res := cp.apply(t, m.yaml[i], true)
		mustAccept(t, name, res)
		if sts, ok := obj.(*appsv1.StatefulSet); ok {
			checkKept(t, sts, res.body)
		}
	}
	t.Run("refused without the pod's user namespace", func(t *testing.T) {
		sts := one[*appsv1.StatefulSet](t, m).DeepCopy()
		hostUsers := true
		sts.Spec.Template.Spec.HostUsers = &hostUsers
		res := cp.apply(t, toYAML(t, sts), true)
		if res.status != http.StatusUnprocessableEntity || !strings.Contains(string(res.body), "procMount") {
			t.Errorf("StatefulSet with hostUsers: true and procMount: Unmasked: %d %s, want 422 naming procMount", res.status, res.body)
		}
	})
	t.Run("an unknown field is refused", func(t *testing.T) {
		i := indexOf[*appsv1.StatefulSet](m)
		bad := bytes.Replace(m.yaml[i], []byte("\n  serviceName:"), []byte("\n  serviceNmae: typo\n  serviceName:"), 1)
		if bytes.Equal(bad, m.yaml[i]) {
			t.Fatalf("the rendered StatefulSet has no spec.serviceName line to misspell:\n%s", m.yaml[i])
		}
		if res := cp.apply(t, bad, true); res.status < 400 {
			t.Errorf("StatefulSet with an unknown field accepted: %d %s", res.status, res.body)
		}
	})
}

func mustAccept(t *testing.T, what string, res applyResult) {
	t.Helper()
	if res.status != http.StatusOK && res.status != http.StatusCreated {
		t.Fatalf("API server refused %s: %d %s", what, res.status, res.body)
	}
	for _, w := range res.warnings {
		t.Logf("%s: warning from the API server: %s", what, w)
	}
}

// checkKept compares the StatefulSet the API server answered with the
// one sent, on the fields docs/kubernetes.md promises.
func checkKept(t *testing.T, sent *appsv1.StatefulSet, body []byte) {
	t.Helper()
	var got appsv1.StatefulSet
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("decode the applied StatefulSet: %v", err)
	}
	gp, sp := got.Spec.Template.Spec, sent.Spec.Template.Spec
	gc, sc := gatewayContainer(t, &got), gatewayContainer(t, sent)
	if gp.SecurityContext == nil || gc.SecurityContext == nil || gc.ReadinessProbe == nil {
		t.Fatalf("API server dropped the security context or the readiness probe:\n%s", body)
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"hostUsers", deref(gp.HostUsers), deref(sp.HostUsers)},
		{"procMount", deref(gc.SecurityContext.ProcMount), deref(sc.SecurityContext.ProcMount)},
		{"seccompProfile", deref(gp.SecurityContext.SeccompProfile), deref(sp.SecurityContext.SeccompProfile)},
		{"appArmorProfile", deref(gp.SecurityContext.AppArmorProfile), deref(sp.SecurityContext.AppArmorProfile)},
		{"capabilities", fmt.Sprint(gc.SecurityContext.Capabilities), fmt.Sprint(sc.SecurityContext.Capabilities)},
		// (the path and port sent; the server fills in the scheme, HTTP)
		{"readiness probe", fmt.Sprint(gc.ReadinessProbe.HTTPGet.Path, gc.ReadinessProbe.HTTPGet.Port.String()),
			fmt.Sprint(sc.ReadinessProbe.HTTPGet.Path, sc.ReadinessProbe.HTTPGet.Port.String())},
		{"terminationGracePeriodSeconds", deref(gp.TerminationGracePeriodSeconds), deref(sp.TerminationGracePeriodSeconds)},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("API server kept %s = %v, want %v (a disabled feature drops its field)", c.field, c.got, c.want)
		}
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func toYAML(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	y, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatalf("marshal %T: %v", obj, err)
	}
	return y
}

func indexOf[T runtime.Object](m manifests) int {
	for i, o := range m.objects {
		if _, ok := o.(T); ok {
			return i
		}
	}
	return -1
}
