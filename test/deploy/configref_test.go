package deploy

import (
	"regexp"
	"strings"
	"testing"
)

// configurationPage is the configuration reference: a table of every
// setting of each binary, under its heading.
const configurationPage = "docs/configuration.md"

// configRowFlagRE matches a flag named in the first cell of a table row.
var configRowFlagRE = regexp.MustCompile("`--([a-z0-9-]+)")

// configRows returns the rows of the table under heading in the
// configuration reference, keyed by each flag their first cell names, with
// the row's environment cell.
func configRows(t *testing.T, heading string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(deployFile(t, configurationPage), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", configurationPage, heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `--") || len(cells) < 3 {
			continue
		}
		for _, m := range configRowFlagRE.FindAllStringSubmatch(cells[0], -1) {
			rows[m[1]] = cells[1]
		}
	}
	return rows
}

// TestConfigurationReference: the configuration reference lists every
// setting each binary's --help lists, under its environment variable, and
// no setting the binary does not have.
func TestConfigurationReference(t *testing.T) {
	for _, tc := range []struct {
		bin, heading string
	}{
		{borisBin, "## Core configuration"},
		{gatewayBin, "## Gateway configuration"},
	} {
		help, rows := settings(t, tc.bin), configRows(t, tc.heading)
		for flag, s := range help {
			env, ok := rows[flag]
			switch {
			case !ok:
				t.Errorf("%s, %q: no row for --%s (%s --help lists it)", configurationPage, tc.heading, flag, tc.bin)
			case s.env != "" && !strings.Contains(env, s.env):
				t.Errorf("%s, %q: --%s's environment cell is %q, want it to name %s", configurationPage, tc.heading, flag, env, s.env)
			}
		}
		for flag := range rows {
			if _, ok := help[flag]; !ok {
				t.Errorf("%s, %q: --%s is not a setting of %s (not in its --help)", configurationPage, tc.heading, flag, tc.bin)
			}
		}
	}
}
