package test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

const snippetKey = "nginx.ingress.kubernetes.io/configuration-snippet"

// sessionRouting is what the Ingress's snippet does, read from it: a
// variable tested against a regular expression whose first group is the
// node, and where the request then goes.
type sessionRouting struct {
	matchers map[string]*regexp.Regexp // nginx variable -> its pattern
	target   string                    // proxy_pass address, with $boris_node
}

var (
	snippetIf   = regexp.MustCompile(`if \((\$[a-z_A-Z]+) ~ "([^"]+)"\) \{\s*set \$boris_node \$1;\s*\}`)
	snippetPass = regexp.MustCompile(`proxy_pass http://(\$boris_node[^;]*);`)
)

func parseRouting(t *testing.T, ing *networkingv1.Ingress) sessionRouting {
	t.Helper()
	snippet := ing.Annotations[snippetKey]
	r := sessionRouting{matchers: map[string]*regexp.Regexp{}}
	for _, m := range snippetIf.FindAllStringSubmatch(snippet, -1) {
		re, err := regexp.Compile(m[2])
		if err != nil {
			t.Fatalf("snippet pattern %q: %v", m[2], err)
		}
		r.matchers[strings.ToLower(m[1])] = re
	}
	pass := snippetPass.FindStringSubmatch(snippet)
	if pass == nil {
		t.Fatalf("snippet has no proxy_pass to $boris_node:\n%s", snippet)
	}
	r.target = pass[1]
	return r
}

// route returns where a request goes: its node's address, or "" for the
// Ingress's backend (the ready pods, by credential). Mcp-Session-Id is
// tested last in the snippet, so it wins over ?sessionId=.
func (r sessionRouting) route(header, query string) string {
	node := ""
	for _, c := range []struct{ variable, value string }{{"$arg_sessionid", query}, {"$http_mcp_session_id", header}} {
		if m := r.matchers[c.variable].FindStringSubmatch(c.value); m != nil {
			node = m[1]
		}
	}
	if node == "" {
		return ""
	}
	return strings.ReplaceAll(r.target, "$boris_node", node)
}

// TestIngressRoutesSessionsToTheirNode: a session's requests, by either
// transport's way of naming it, go to the pod whose name starts its id,
// through the headless Service; nothing else a client can send leads the
// ingress anywhere but to the pods.
func TestIngressRoutesSessionsToTheirNode(t *testing.T) {
	m := render(t)
	ing, _ := ingress(t, m)
	sts := one[*appsv1.StatefulSet](t, m)
	r := parseRouting(t, ing)
	for _, v := range []string{"$arg_sessionid", "$http_mcp_session_id"} {
		if r.matchers[v] == nil {
			t.Fatalf("the snippet does not route by %s", v)
		}
	}
	hex := strings.Repeat("0123456789abcdef", 2) // what newSessionID writes after the dot
	podAt := func(i int) string {
		return fmt.Sprintf("%s-%d.%s.%s.svc.cluster.local:8080", sts.Name, i, sts.Spec.ServiceName, sts.Namespace)
	}
	cases := []struct {
		name, header, query, want string
	}{
		{"Streamable HTTP session of node 0", sts.Name + "-0." + hex, "", podAt(0)},
		{"Streamable HTTP session of node 12", sts.Name + "-12." + hex, "", podAt(12)},
		{"2024-11-05 POST ?sessionId=", "", sts.Name + "-2." + hex, podAt(2)},
		{"the header wins over the query", sts.Name + "-1." + hex, sts.Name + "-2." + hex, podAt(1)},
		{"no session: the backend", "", "", ""},
		{"an id without a node", hex, "", ""},
		{"another host as the node", "evil.example.com." + hex, "", ""},
		{"a host after the node", sts.Name + "-1.evil.example.com/" + hex, "", ""},
		{"a port after the node", sts.Name + "-1:9000." + hex, "", ""},
		{"text after the id", sts.Name + "-1." + hex + ".evil.example.com", "", ""},
		{"a short id", sts.Name + "-1." + hex[:31], "", ""},
		{"upper case", strings.ToUpper(sts.Name) + "-1." + hex, "", ""},
		{"another StatefulSet's pod", "other-1." + hex, "", ""},
		{"a newline", sts.Name + "-1." + hex + "\nHost: evil", "", ""},
		{"hostile query, good header", sts.Name + "-3." + hex, "evil.example.com." + hex, podAt(3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.route(c.header, c.query); got != c.want {
				t.Errorf("Mcp-Session-Id %q, ?sessionId=%q: routed to %q, want %q", c.header, c.query, got, c.want)
			}
		})
	}
}

// TestIngressSettings: the rest of the routing and the streaming settings
// of deploy/nginx/boris-nodes.conf.
func TestIngressSettings(t *testing.T) {
	m := render(t)
	ing, backend := ingress(t, m)
	sts := one[*appsv1.StatefulSet](t, m)
	if !selects(backend.Spec.Selector, sts.Spec.Template.Labels) || backend.Spec.ClusterIP == "None" {
		t.Errorf("Ingress backend %s does not balance over the pods", backend.Name)
	}
	want := map[string]string{
		"nginx.ingress.kubernetes.io/upstream-hash-by":        "$http_authorization",
		"nginx.ingress.kubernetes.io/proxy-buffering":         "off",
		"nginx.ingress.kubernetes.io/proxy-http-version":      "1.1",
		"nginx.ingress.kubernetes.io/proxy-body-size":         "4m",
		"nginx.ingress.kubernetes.io/proxy-next-upstream":     "error timeout http_502 http_503 non_idempotent",
		"nginx.ingress.kubernetes.io/proxy-read-timeout":      "3600",
		"nginx.ingress.kubernetes.io/proxy-request-buffering": "off",
	}
	for k, v := range want {
		if got := ing.Annotations[k]; got != v {
			t.Errorf("annotation %s = %q, want %q", k, got, v)
		}
	}
	host := ing.Spec.Rules[0].Host
	if pub := configEnv(t, m)["BORIS_GATEWAY_PUBLIC_URL"]; pub != "https://"+host+"/mcp" {
		t.Errorf("BORIS_GATEWAY_PUBLIC_URL %q, want https://%s/mcp (the Ingress's host)", pub, host)
	}
	if len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].SecretName == "" {
		t.Errorf("Ingress TLS %+v, want a certificate's Secret", ing.Spec.TLS)
	}
}

// controllerValues is what ingress-nginx-values.yaml sets, of the Helm
// chart's values.
type controllerValues struct {
	Controller struct {
		IngressClass         string `json:"ingressClass"`
		IngressClassResource struct {
			Name            string `json:"name"`
			ControllerValue string `json:"controllerValue"`
			Default         bool   `json:"default"`
		} `json:"ingressClassResource"`
		Scope struct {
			Enabled   bool   `json:"enabled"`
			Namespace string `json:"namespace"`
		} `json:"scope"`
		AllowSnippetAnnotations bool              `json:"allowSnippetAnnotations"`
		Config                  map[string]string `json:"config"`
	} `json:"controller"`
}

// TestIngressController: the controller the Ingress names is the one
// ingress-nginx-values.yaml installs, which accepts the snippet and serves
// only Boris's namespace (snippets are never allowed cluster-wide).
func TestIngressController(t *testing.T) {
	m := render(t)
	ing, _ := ingress(t, m)
	path := filepath.Join(kustomizeDir, "ingress-nginx-values.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var v controllerValues
	if err := yaml.UnmarshalStrict(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := v.Controller
	if ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName != c.IngressClassResource.Name || c.IngressClass != c.IngressClassResource.Name {
		t.Errorf("Ingress class %v; the controller of %s has class %q (ingressClass %q)", ing.Spec.IngressClassName, path, c.IngressClassResource.Name, c.IngressClass)
	}
	if c.IngressClassResource.Default || c.IngressClassResource.ControllerValue == "k8s.io/ingress-nginx" {
		t.Errorf("%s: the class must be Boris's own (not the default class, not the stock controller value)", path)
	}
	if !c.Scope.Enabled || c.Scope.Namespace != ing.Namespace {
		t.Errorf("%s: scope %+v; snippets are allowed, so it must serve only namespace %q", path, c.Scope, ing.Namespace)
	}
	if !c.AllowSnippetAnnotations || c.Config["annotations-risk-level"] != "Critical" {
		t.Errorf("%s: the controller would refuse the routing snippet (allowSnippetAnnotations %v, annotations-risk-level %q)",
			path, c.AllowSnippetAnnotations, c.Config["annotations-risk-level"])
	}
}
