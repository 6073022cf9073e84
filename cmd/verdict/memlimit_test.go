package main

import (
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"testing"
)

func TestSetMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	t.Setenv("GOMEMLIMIT", "")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		name string
		file string
		err  error
		want int64
	}{
		{"a 768 MiB container", "805306368\n", nil, 805306368 / 100 * 85},
		{"no limit", "max\n", nil, 0},
		{"no cgroup v2", "", errors.New("no such file"), 0},
	} {
		got := setMemoryLimit(log, func(string) ([]byte, error) { return []byte(tc.file), tc.err })
		if got != tc.want {
			t.Errorf("%s: limit %d, want %d", tc.name, got, tc.want)
		}
		if tc.want > 0 && debug.SetMemoryLimit(-1) != tc.want {
			t.Errorf("%s: the runtime's limit was not set", tc.name)
		}
	}
}
