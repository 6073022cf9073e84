package webflow_test

import (
	"os"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/contract"
)

// TestMain holds every response of the fake GitHub in these tests to
// GitHub's REST description.
func TestMain(m *testing.M) { os.Exit(contract.Main(m)) }
