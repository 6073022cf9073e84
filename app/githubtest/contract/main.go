package contract

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/verdict-bot/verdict/app/githubtest"
)

// maxReported bounds the violations printed; the count is always given.
const maxReported = 40

// Main runs a package's tests with every exchange of every fake validated
// against GitHub's REST description, and fails the run when one does not
// conform. Use it from TestMain in each package whose tests start a fake:
//
//	func TestMain(m *testing.M) { os.Exit(contract.Main(m)) }
//
// Without the descriptions it says so in one line and runs the tests as
// they are.
func Main(m *testing.M) int {
	dir, err := Dir()
	if errors.Is(err, ErrAbsent) {
		fmt.Printf("contract: responses of the fake GitHub not validated: %v\n", err)
		return m.Run()
	}
	var rest *REST
	if err == nil {
		rest, err = LoadREST(dir)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "contract: %v\n", err)
		return 1
	}
	var mu sync.Mutex
	var violations []string
	githubtest.Observe(func(ex githubtest.Exchange) {
		if err := rest.Check(ex); err != nil {
			mu.Lock()
			violations = append(violations, err.Error())
			mu.Unlock()
		}
	})
	code := m.Run()
	githubtest.Observe(nil)
	if len(violations) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "contract: %d responses of the fake GitHub do not conform to GitHub's REST description:\n", len(violations))
	for i, v := range violations {
		if i == maxReported {
			fmt.Fprintf(os.Stderr, "  ... and %d more\n", len(violations)-maxReported)
			break
		}
		fmt.Fprintf(os.Stderr, "  %s\n", v)
	}
	return 1
}
