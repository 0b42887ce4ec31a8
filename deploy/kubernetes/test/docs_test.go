package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// docsPage is the deployment's documentation, relative to this package.
var docsPage = filepath.Join(kustomizeDir, "..", "..", "docs", "kubernetes.md")

// securityRow is a row of docs/kubernetes.md's security table naming
// one or more fields and one value: "| `hostUsers` | `false` | why |".
var securityRow = regexp.MustCompile("(?m)^\\| ((?:`[A-Za-z]+`(?:, )?)+) \\| `([^`]+)` \\|")

// TestDocsMatchSecurityContext: every setting docs/kubernetes.md's
// security table names has the value it says in the rendered StatefulSet
// (a field holding an object, such as seccompProfile, by its type).
func TestDocsMatchSecurityContext(t *testing.T) {
	page, err := os.ReadFile(docsPage)
	if err != nil {
		t.Fatalf("read %s: %v", docsPage, err)
	}
	m := render(t)
	var sts map[string]any
	if err := yaml.Unmarshal(m.yaml[indexOf[*appsv1.StatefulSet](m)], &sts); err != nil {
		t.Fatalf("read the StatefulSet: %v", err)
	}
	rows := securityRow.FindAllStringSubmatch(string(page), -1)
	if len(rows) < 8 {
		t.Fatalf("found %d setting rows in %s's security table, want its 8 or more", len(rows), docsPage)
	}
	for _, row := range rows {
		want := row[2]
		for _, field := range strings.Split(row[1], ", ") {
			field = strings.Trim(field, "`")
			got := valuesOf(sts, field)
			if len(got) == 0 {
				t.Errorf("%s says %s is %s; the StatefulSet has no %s", docsPage, field, want, field)
			}
			for _, v := range got {
				if v != want {
					t.Errorf("%s says %s is %s; the StatefulSet has %s", docsPage, field, want, v)
				}
			}
		}
	}
}

// valuesOf returns every value of key in a decoded YAML tree: a scalar
// as printed, an object by its "type".
func valuesOf(tree any, key string) []string {
	var out []string
	switch n := tree.(type) {
	case map[string]any:
		for k, v := range n {
			if k == key {
				if obj, ok := v.(map[string]any); ok {
					out = append(out, fmt.Sprint(obj["type"]))
				} else {
					out = append(out, fmt.Sprint(v))
				}
				continue
			}
			out = append(out, valuesOf(v, key)...)
		}
	case []any:
		for _, v := range n {
			out = append(out, valuesOf(v, key)...)
		}
	}
	return out
}
