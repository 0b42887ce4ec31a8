package test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchCall times b.N calls of tool through c over stdio and reports
// their median and 99th percentile besides the mean.
func benchCall(b *testing.B, s *mcp.ClientSession, tool string, args func(i int) map[string]any) {
	b.Helper()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args(i)})
		times = append(times, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", tool, err, res)
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// benchCore starts a core on the board at db for a benchmark.
func benchCore(b *testing.B, db string) *mcp.ClientSession {
	b.Helper()
	cmd := exec.Command(borisBin, "--tasks-db", db, "--checkpoints", "off")
	client := mcp.NewClient(&mcp.Implementation{Name: "boris-bench", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkBoardCreateTask: create_task through stdio, the database on
// the temporary directory's disk (synchronous=FULL: each one is fsynced).
func BenchmarkBoardCreateTask(b *testing.B) {
	c := benchCore(b, filepath.Join(b.TempDir(), "boris.db"))
	benchCall(b, c, "create_task", func(i int) map[string]any {
		return map[string]any{"description": fmt.Sprintf("task %d", i), "priority": 1 + i%5}
	})
}

// BenchmarkBoardListTasks1000: list_tasks of a board of 1,000 tasks, all
// of them returned, text and structured content.
func BenchmarkBoardListTasks1000(b *testing.B) {
	c := benchCore(b, filepath.Join(b.TempDir(), "boris.db"))
	for i := range 1000 {
		res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "create_task",
			Arguments: map[string]any{"description": fmt.Sprintf("task %d with a description of ordinary length", i), "priority": 1 + i%5}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	benchCall(b, c, "list_tasks", func(int) map[string]any { return map[string]any{"limit": 1000} })
}
