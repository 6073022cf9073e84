package main

import (
	"os"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/contract"
)

// TestMain holds every response of the fake GitHub in these tests to
// GitHub's REST description, and removes the serve binary the process
// tests built.
func TestMain(m *testing.M) {
	code := contract.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
