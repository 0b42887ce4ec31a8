// Package search provides the engine of Boris's grep and glob tools: a
// parallel directory walk that honours .gitignore files and the path
// scoping, and a regular-expression search with literal prefilters.
//
// The walk runs runtime.GOMAXPROCS(0) workers over a shared stack of jobs
// (read a directory; visit a batch of its files). It never descends into
// .git, directories ignored by .gitignore rules (nested files, the parent
// directories' up to the repository root, and .git/info/exclude), or
// directories the policy refuses, and it does not follow symlinks to
// directories. Every entry's path is checked against the policy before the
// entry is opened; on Linux entries are then opened with openat(2) and
// O_NOFOLLOW relative to their directory's descriptor, so what is opened
// is what was checked. What is left out is counted per reason (Skipped).
//
// Matching uses Go's regexp (RE2). Literals that every match must contain
// are extracted from the parsed pattern (a single literal, or a small set
// for alternations, compared case-insensitively under (?i)) and searched
// for with a rare-byte scan built on bytes.IndexByte; the regexp only runs
// on lines holding one. Results are sorted newest first.
package search
