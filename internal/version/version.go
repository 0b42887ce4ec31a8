// Package version holds the release version both binaries print.
package version

// Version is the release version, stamped at build time with
// -ldflags "-X github.com/mjkoo/boris/internal/version.Version=...".
var Version = "dev"
