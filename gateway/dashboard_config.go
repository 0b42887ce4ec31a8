package gateway

import (
	"log/slog"
	"os"
	"strings"

	"github.com/mjkoo/boris/gateway/dashboard"
	"github.com/mjkoo/boris/gateway/launch"
)

// minMetricsToken is the shortest --metrics-token-file token accepted, as
// for static tokens.
const minMetricsToken = 16

// dashboardOptions are the DashboardOptions the configuration asks for,
// reading --metrics-token-file.
func (c *Config) dashboardOptions() (dashboard.Options, error) {
	d := dashboard.Options{Operators: dashboard.OperatorKeys(c.DashboardOperators), MetricsOpen: c.MetricsAuth == "none"}
	if c.onePrincipal() {
		d.Operators = append(d.Operators, dashboard.OperatorKeys([]string{generatedSubject})...)
	}
	if c.MetricsTokenFile == "" {
		return d, nil
	}
	b, err := os.ReadFile(c.MetricsTokenFile)
	if err != nil {
		return d, usage("invalid --metrics-token-file: %v", err)
	}
	d.MetricsToken = strings.TrimSpace(string(b))
	if len(d.MetricsToken) < minMetricsToken || strings.ContainsAny(d.MetricsToken, " \t\r\n") {
		return d, usage("invalid --metrics-token-file %s: want one token of at least %d characters without spaces", c.MetricsTokenFile, minMetricsToken)
	}
	return d, nil
}

// warnOpenBoards warns when principals' boards lie where every core's
// commands may read them: no --workdir-template and no --allow-dir
// confine commands to a directory (Landlock grants everything then).
func (c *Config) warnOpenBoards(boards string, environ []string, log *slog.Logger) {
	if boards == "" || c.WorkdirTemplate != "" || launch.HasFlag(c.CoreArgs, "allow-dir") || launch.EnvValue(environ, "BORIS_ALLOW_DIRS") != "" {
		return
	}
	log.Warn("principals' task boards and checkpoint repositories are readable by every core's commands: cores have no --allow-dir; "+
		"use --workdir-template or give cores --allow-dir (after --) outside the state directory", "boards", boards)
}
