package gateway

import (
	"os"
	"strings"
)

// minMetricsToken is the shortest --metrics-token-file token accepted, as
// for static tokens.
const minMetricsToken = 16

// dashboardOptions are the DashboardOptions the configuration asks for,
// reading --metrics-token-file.
func (c *Config) dashboardOptions() (DashboardOptions, error) {
	d := DashboardOptions{Operators: operatorKeys(c.DashboardOperators), MetricsOpen: c.MetricsAuth == "none"}
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
