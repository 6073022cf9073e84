package webhook_test

import (
	"os"
	"testing"
)

// TestMain runs the tests, or, in a test binary re-executed by
// BenchmarkIntakeOpenLoop, only its open-loop client.
func TestMain(m *testing.M) {
	if spec := os.Getenv(openLoopClientEnv); spec != "" {
		os.Exit(runOpenLoopClient(spec))
	}
	os.Exit(m.Run())
}
