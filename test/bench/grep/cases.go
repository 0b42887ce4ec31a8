package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rgSameRules makes ripgrep skip and search what boris does: hidden files
// are searched but .git is not; .gitignore files are honoured without a
// git repository; .ignore/.rgignore files and the global gitignore, which
// boris does not read, are not; files over boris's default 10MB limit are
// skipped. Neither follows symlinks to directories (the tree has no links).
var rgSameRules = []string{"--no-config", "--no-require-git", "--hidden", "-g", "!.git",
	"--no-ignore-dot", "--no-ignore-global", "--max-filesize", "10M"}

// benchCase is one search done by both tools.
type benchCase struct {
	name  string         // row label
	tool  string         // boris tool
	args  map[string]any // boris arguments
	rg    []string       // rg arguments before the root
	unit  string         // what the counts count
	count func(boris string) (int, error)
}

// result is one case's measurement.
type result struct {
	c         benchCase
	boris, rg time.Duration // medians
	matches   int           // files or lines found, equal for both
}

// pattern is one grep pattern of a corpus's cases.
type pattern struct {
	label, pattern string
	fold           bool
	rg             []string
}

// goCases lists the searches measured on the Go tree: three patterns in
// two grep modes, then a glob.
func goCases() []benchCase {
	return grepCases([]pattern{
		{"literal", "ErrUnexpectedEOF", false, []string{"-e", "ErrUnexpectedEOF"}},
		{"case-insensitive word", `\bdeadline\b`, true, []string{"-i", "-w", "-e", "deadline"}},
		{"alternation", "Marshal(Indent|JSON)|Unmarshal", false, []string{"-e", "Marshal(Indent|JSON)|Unmarshal"}},
	}, "**/*.go", "*.go")
}

// linuxCases lists the searches measured on the kernel tree: the same
// kinds as goCases, with patterns that occur there (and whose content
// results fit in one boris result of 1 MB), then a glob of the C files.
func linuxCases() []benchCase {
	return grepCases([]pattern{
		{"literal", "EXPORT_SYMBOL_NS_GPL", false, []string{"-e", "EXPORT_SYMBOL_NS_GPL"}},
		{"case-insensitive word", `\bdeadline\b`, true, []string{"-i", "-w", "-e", "deadline"}},
		{"alternation", "spin_(lock|unlock)_irqsave_nested|raw_spin_trylock", false,
			[]string{"-e", "spin_(lock|unlock)_irqsave_nested|raw_spin_trylock"}},
	}, "**/*.c", "*.c")
}

// grepCases makes the cases of a corpus: each pattern in two grep modes,
// then a glob. Every grep asks for all results (head_limit 0), so boris
// produces as much output as rg.
func grepCases(patterns []pattern, glob, rgGlob string) []benchCase {
	var out []benchCase
	for _, mode := range []string{"files_with_matches", "content"} {
		for _, p := range patterns {
			c := benchCase{
				name: fmt.Sprintf("grep %s, %s", mode, p.label), tool: "grep", unit: "files", count: countEntries,
				args: map[string]any{"pattern": p.pattern, "case_insensitive": p.fold, "output_mode": mode, "head_limit": 0},
				rg:   append(slices.Clone(rgSameRules), "-l"),
			}
			if mode == "content" {
				c.unit, c.rg = "lines", append(slices.Clone(rgSameRules), "-n", "--no-heading")
			}
			c.rg = append(c.rg, p.rg...)
			out = append(out, c)
		}
	}
	return append(out, benchCase{
		name: "glob " + glob, tool: "glob", unit: "files", count: countGlob,
		args: map[string]any{"pattern": glob},
		rg:   append(slices.Clone(rgSameRules), "--files", "-g", rgGlob),
	})
}

// countEntries counts the result lines before the notes of a boris grep.
func countEntries(text string) (int, error) {
	body, _, ok := strings.Cut(text, "\n\n")
	if !ok {
		return 0, fmt.Errorf("no notes in result %.200q", text)
	}
	if strings.HasPrefix(body, "No matches") {
		return 0, nil
	}
	return strings.Count(body, "\n") + 1, nil
}

// globTotal finds the total in glob's cap note.
var globTotal = regexp.MustCompile(`\[Showing the \d+ newest of (\d+) matching files`)

// countGlob returns how many files a boris glob matched: the cap note's
// total (boris lists at most 1000), else the lines listed.
func countGlob(text string) (int, error) {
	if m := globTotal.FindStringSubmatch(text); m != nil {
		return strconv.Atoi(m[1])
	}
	return countEntries(text)
}

// measure runs a case once untimed on each tool (warming caches, checking
// both find the same number of matches), then runs timed runs of each,
// alternating. With cold, the page cache is dropped before every timed run
// of either tool.
func measure(ctx context.Context, cfg config, b *borisSession, root string, c benchCase, runs int, cold bool) (result, error) {
	r := result{c: c}
	text, _, err := b.call(ctx, c.tool, c.args)
	if err != nil {
		return r, err
	}
	if r.matches, err = c.count(text); err != nil {
		return r, err
	}
	out, err := runRg(ctx, cfg, root, c)
	if err != nil {
		return r, err
	}
	if n := bytes.Count(out, []byte("\n")); n != r.matches {
		return r, fmt.Errorf("boris found %d %s, rg %d: the rules differ", r.matches, c.unit, n)
	}
	var bt, rt []time.Duration
	prepare := func() error {
		if cold {
			return dropCaches()
		}
		return nil
	}
	for range runs {
		if err := prepare(); err != nil {
			return r, err
		}
		_, d, err := b.call(ctx, c.tool, c.args)
		if err != nil {
			return r, err
		}
		bt = append(bt, d)
		if err := prepare(); err != nil {
			return r, err
		}
		start := time.Now()
		if _, err := runRg(ctx, cfg, root, c); err != nil {
			return r, err
		}
		rt = append(rt, time.Since(start))
	}
	r.boris, r.rg = median(bt), median(rt)
	return r, nil
}

// runRg runs ripgrep on the tree and returns its output. Exit status 1
// means no match, which is not a failure.
func runRg(ctx context.Context, cfg config, root string, c benchCase) ([]byte, error) {
	cmd := exec.CommandContext(ctx, cfg.rg, append(slices.Clone(c.rg), root)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("rg %v: %w: %s", c.rg, err, errb.String())
	}
	return out.Bytes(), nil
}

// median returns the middle duration (the upper middle for an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
