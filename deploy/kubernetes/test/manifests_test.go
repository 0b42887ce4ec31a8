package test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeDir is deploy/kubernetes, relative to this package.
const kustomizeDir = ".."

// manifests are the rendered objects, each decoded into its API type, and
// each object's YAML as rendered (for the API server).
type manifests struct {
	objects []runtime.Object
	yaml    [][]byte
}

// render runs Kustomize (the Go module kubectl embeds) on deploy/kubernetes
// and decodes every object strictly: an unknown or duplicated field, or a
// kind outside the API types the deployment uses, fails the test.
func render(t *testing.T) manifests {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), kustomizeDir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", kustomizeDir, err)
	}
	decoder := strictDecoder(t)
	var m manifests
	for _, res := range resMap.Resources() {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatalf("render %s: %v", res.CurId(), err)
		}
		obj, err := decodeStrict(decoder, y)
		if err != nil {
			t.Fatalf("decode %s strictly: %v\n%s", res.CurId(), err, y)
		}
		m.objects = append(m.objects, obj)
		m.yaml = append(m.yaml, y)
	}
	return m
}

// strictDecoder decodes YAML into the API types of the kinds the
// deployment ships, refusing unknown and duplicate fields.
func strictDecoder(t *testing.T) runtime.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, networkingv1.AddToScheme, policyv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			t.Fatalf("build the API scheme: %v", err)
		}
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme,
		json.SerializerOptions{Yaml: true, Strict: true})
}

func decodeStrict(d runtime.Decoder, y []byte) (runtime.Object, error) {
	obj, _, err := d.Decode(y, nil, nil)
	return obj, err
}

// one returns the only object of type T, failing the test unless there is
// exactly one.
func one[T runtime.Object](t *testing.T, m manifests) T {
	t.Helper()
	all := each[T](m)
	if len(all) != 1 {
		var zero T
		t.Fatalf("rendered %d objects of type %T, want 1", len(all), zero)
	}
	return all[0]
}

// each returns the objects of type T, in rendering order.
func each[T runtime.Object](m manifests) []T {
	var out []T
	for _, o := range m.objects {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// configEnv returns the gateway's settings: the generated ConfigMap's data.
func configEnv(t *testing.T, m manifests) map[string]string {
	t.Helper()
	return one[*corev1.ConfigMap](t, m).Data
}

// gatewayContainer returns the StatefulSet's gateway container.
func gatewayContainer(t *testing.T, sts *appsv1.StatefulSet) corev1.Container {
	t.Helper()
	for _, c := range sts.Spec.Template.Spec.Containers {
		if c.Name == "gateway" {
			return c
		}
	}
	t.Fatalf("StatefulSet %s has no container named gateway", sts.Name)
	return corev1.Container{}
}

// containerfileUID returns the uid deploy/Containerfile gives the boris
// user (useradd --uid N), which the pod must run as.
func containerfileUID(t *testing.T) string {
	t.Helper()
	path := filepath.Join(kustomizeDir, "..", "Containerfile")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		for i, f := range fields {
			if f == "--uid" && i+1 < len(fields) {
				return fields[i+1]
			}
		}
	}
	t.Fatalf("%s: no useradd --uid", path)
	return ""
}

// envNamed returns the container's variable of that name.
func envNamed(c corev1.Container, name string) (corev1.EnvVar, error) {
	for _, e := range c.Env {
		if e.Name == name {
			return e, nil
		}
	}
	return corev1.EnvVar{}, fmt.Errorf("container %s sets no %s", c.Name, name)
}
