package extension

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTool writes tools/<dir>/tool.meta.json with meta and, unless exe
// is "", an executable tool.sh with exe as its body.
func writeTool(t *testing.T, root, dir, meta, exe string) {
	t.Helper()
	d := filepath.Join(root, "tools", dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "tool.meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	if exe != "" {
		if err := os.WriteFile(filepath.Join(d, "tool.sh"), []byte(exe), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

const okScript = "#!/bin/sh\necho ok\n"

func TestLoadSkipsWhatCannotBeUsedAndLoadsTheRest(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	writeTool(t, root, "good", `{"name":"good","description":"fine","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"timeoutSecs":7,"annotations":{"readOnlyHint":true}}`, okScript)
	writeTool(t, root, "noschema", `{"name":"noschema"}`, okScript)
	writeTool(t, root, "malformed", `{"name": "broken",`, okScript)
	writeTool(t, root, "badname", `{"name":"has space"}`, okScript)
	// Without the execute bit: a script (a #! line) runs through bash, as
	// the framework runs it; anything else is refused.
	writeTool(t, root, "notexec", `{"name":"notexec"}`, "")
	if err := os.WriteFile(filepath.Join(root, "tools", "notexec", "tool.sh"), []byte(okScript), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTool(t, root, "notrunnable", `{"name":"notrunnable"}`, "")
	if err := os.WriteFile(filepath.Join(root, "tools", "notrunnable", "tool.py"), []byte("print('no')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeTool(t, root, "noexe", `{"name":"noexe"}`, "")
	writeTool(t, root, "zdup", `{"name":"good"}`, okScript) // after good: the first wins
	writeTool(t, root, "builtin", `{"name":"bash"}`, okScript)
	writeTool(t, root, "badtimeout", `{"name":"badtimeout","timeoutSecs":0}`, okScript)
	writeTool(t, root, "arrayschema", `{"name":"arrayschema","inputSchema":{"type":"array"}}`, okScript)
	// A tool whose program is a symlink to a script outside the directory.
	writeTool(t, root, "escape", `{"name":"escape"}`, "")
	if err := os.WriteFile(filepath.Join(other, "evil.sh"), []byte(okScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other, "evil.sh"), filepath.Join(root, "tools", "escape", "tool.sh")); err != nil {
		t.Fatal(err)
	}
	// A tool directory that is itself a symlink out.
	writeTool(t, other, "outside", `{"name":"outside"}`, okScript)
	if err := os.Symlink(filepath.Join(other, "tools", "outside"), filepath.Join(root, "tools", "linked")); err != nil {
		t.Fatal(err)
	}

	tools, skipped, err := Load([]string{root}, func(name string) bool { return name == "bash" })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "good,noschema,notexec" {
		t.Errorf("loaded %v, want good, noschema and notexec", names)
	}
	g := tools[0]
	if g.Timeout != 7 || g.Input.Properties["x"] == nil || g.Annotations == nil || !g.Annotations.ReadOnlyHint || g.Exec != filepath.Join(mustReal(t, root), "tools", "good", "tool.sh") {
		t.Errorf("good: got %+v", g)
	}
	if tools[1].Input.Type != "object" || tools[1].Output != nil {
		t.Errorf("noschema: want an empty object input schema and no output schema, got %+v", tools[1])
	}
	want := map[string]string{
		"malformed":   "malformed metadata",
		"badname":     "tool name",
		"notrunnable": "not executable and not a script",
		"noexe":       "no executable",
		"zdup":        "already defined",
		"builtin":     "built-in tool",
		"badtimeout":  "timeoutSecs 0",
		"arrayschema": `want "object"`,
		"escape":      "leads outside the extension directory",
		"linked":      "leads outside the extension directory",
	}
	got := map[string]string{}
	for _, s := range skipped {
		got[filepath.Base(filepath.Dir(s.Path))] = s.Reason
	}
	for dir, reason := range want {
		if !strings.Contains(got[dir], reason) {
			t.Errorf("%s: skipped with %q, want a reason containing %q", dir, got[dir], reason)
		}
	}
	if len(skipped) != len(want) {
		t.Errorf("skipped %d entries (%v), want %d", len(skipped), got, len(want))
	}
}

func TestLoadRefusesAMissingDirectory(t *testing.T) {
	if _, _, err := Load([]string{filepath.Join(t.TempDir(), "missing")}, nil); err == nil {
		t.Error("Load of a missing directory: want an error")
	}
}

func TestLoadKeepsTheFirstOfTwoDirectories(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeTool(t, a, "t", `{"name":"same","description":"from a"}`, okScript)
	writeTool(t, b, "t", `{"name":"same","description":"from b"}`, okScript)
	tools, skipped, err := Load([]string{a, b}, nil)
	if err != nil || len(tools) != 1 || tools[0].Description != "from a" || len(skipped) != 1 {
		t.Errorf("got %v, %v, %v; want a's tool and b's skipped", tools, skipped, err)
	}
}

func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
