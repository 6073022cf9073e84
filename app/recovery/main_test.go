package recovery_test

import (
	"os"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest/contract"
)

func TestMain(m *testing.M) { os.Exit(contract.Main(m)) }
