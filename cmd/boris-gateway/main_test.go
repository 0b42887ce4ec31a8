package main

import "testing"

// TestGatewayProcs: one CPU per four Go would use, never none.
func TestGatewayProcs(t *testing.T) {
	for _, tc := range []struct{ cpus, want int }{{1, 1}, {2, 1}, {4, 1}, {7, 1}, {8, 2}, {64, 16}} {
		if got := gatewayProcs(tc.cpus); got != tc.want {
			t.Errorf("gatewayProcs(%d) = %d, want %d", tc.cpus, got, tc.want)
		}
	}
}
