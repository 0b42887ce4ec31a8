// Package search provides the engine of Boris's grep and glob tools: a
// parallel directory walk that honours .gitignore files and the path
// scoping, and a regular-expression search with literal prefilters.
//
// The walk runs at least 16 workers (so that reads from a cold disk overlap)
// over a shared stack of jobs
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
// for with a rare-byte scan built on bytes.IndexByte, or, when that byte is
// common in the text, a scan for two rare bytes at once (AVX2 on amd64);
// the regexp only runs on lines holding one, and not even there when the
// literals decide the line. Content mode keeps the lines it will show, so
// rendering does not read the files again. Results are sorted newest
// first.
package search
