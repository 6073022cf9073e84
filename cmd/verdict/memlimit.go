package main

import (
	"github.com/verdict-bot/verdict/app/config"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// cgroupMemoryMax is where cgroup v2 states the container's memory limit.
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// setMemoryLimit gives the Go runtime a soft memory limit of 85 % of the
// container's, unless GOMEMLIMIT already sets one: without it the heap may
// grow to twice what is live before a collection, and a burst of large
// verifications meets the kernel's out-of-memory kill instead of a busier
// collector. It returns the limit set (0 when none).
func setMemoryLimit(log *slog.Logger, read func(string) ([]byte, error)) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	max := containerMemory(read)
	if max <= 0 {
		return 0
	}
	limit := max / 100 * 85
	debug.SetMemoryLimit(limit)
	log.Info("soft memory limit set from the container's", "memory_limit_bytes", limit, "container_memory_bytes", max)
	return limit
}

// containerMemory is the container's memory limit in bytes (0: none known).
func containerMemory(read func(string) ([]byte, error)) int64 {
	b, err := read(cgroupMemoryMax)
	if err != nil {
		return 0
	}
	max, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || max <= 0 { // "max": no limit
		return 0
	}
	return max
}

// memoryBudget resolves VERDICT_MEMORY_BUDGET: auto is half the
// container's limit (the rest is the runtime, the evidence cache and the
// queue), none without a limit.
func memoryBudget(setting int64, read func(string) ([]byte, error)) int64 {
	if setting != config.MemoryAuto {
		return setting
	}
	return containerMemory(read) / 2
}
