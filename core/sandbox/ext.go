package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The extension area is where the core keeps the shell SDK extension
// tools source and each extension call's files (progress, logs, the
// questions it asks the client and their answers). Extension tools must
// write there; no other command may, nor read it: a command that could
// would ask the client anything in Boris's name, or rewrite the SDK every
// extension tool runs. So the area lies in Boris's own state directory
// (Options.ExtensionRoot), outside every directory commands may write, and
// extension tools run in a Landlock domain of their own that may write it
// (ExtensionSpec): through the helper, a domain beside the commands'; in
// the spawner, the spawner's own domain, with commands in one nested in it
// (see thread_linux.go). It is a private directory like the temporary
// one: locked while its core lives, swept when its core was killed,
// removed by Close.

// extArea is the extension area of a Sandbox.
type extArea struct {
	root string   // Options.ExtensionRoot, "" for none
	dir  string   // the area, once made
	lock *os.File // holds dir's lock while the core lives
}

// make makes the area under root, sweeping those of dead cores: once, from
// Prepare. Nothing is made without a root.
func (a *extArea) make() error {
	if a.root == "" {
		return nil
	}
	if err := os.MkdirAll(a.root, 0o700); err != nil {
		return fmt.Errorf("sandbox: extension area: %w", err)
	}
	dir := filepath.Join(a.root, tempDirName())
	lock, err := makeTempDir(dir)
	if err != nil {
		return fmt.Errorf("sandbox: extension area: %w", err)
	}
	a.dir, a.lock = dir, lock
	go sweepTempDirs(a.root, dir)
	return nil
}

// remove removes the area, if it was made.
func (a *extArea) remove() error {
	if a.lock == nil {
		return nil
	}
	err := os.RemoveAll(a.dir)
	a.lock.Close()
	a.lock = nil
	return err
}

// ExtDir returns the extension area, made by Prepare: "" when there is
// none (no Options.ExtensionRoot, or commands are not confined).
func (s *Sandbox) ExtDir() string {
	if !s.Enforced() {
		return ""
	}
	_ = s.Prepare()
	return s.ext.dir
}

// ExtensionSpec returns the rules extension tools run under: the
// commands' plus the extension area, read and written.
func (s *Sandbox) ExtensionSpec() Spec {
	spec := s.rules()
	if s.ext.dir != "" {
		spec.Write = append(slices.Clone(spec.Write), s.ext.dir)
	}
	return spec
}

// WrapExtension is Wrap for extension tools: the helper confines them
// with ExtensionSpec, in a domain of their own beside the commands'.
func (s *Sandbox) WrapExtension(argv []string) []string {
	if !s.Enforced() {
		return argv
	}
	out := []string{selfExe, HelperArg}
	out = append(out, encodeSpec(s.ExtensionSpec())...)
	out = append(out, "--")
	return append(out, argv...)
}
