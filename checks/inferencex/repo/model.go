package repo

import (
	"fmt"
	"strings"

	"github.com/verdict-bot/verdict/checks"
)

// ConfigEntry is one master-config entry with its classifications.
type ConfigEntry struct {
	Key         string
	File        string // master file path
	Line        int
	Image       string
	Model       string
	ModelPrefix string
	Runner      string
	Precision   string
	Framework   string
	MultiNode   bool
	Disagg      bool
	Scenarios   []Scenario
	// Raw is the decoded entry, for deep comparison and fields the typed
	// view does not name.
	Raw Fields

	SKU        string // normalized runner
	Agentic    bool
	SpecDecode bool
	OpenSource bool // open-source engine framework
}

// Scenario is one scenario block of an entry.
type Scenario struct {
	Type   string // fixed-seq-len or agentic-coding
	ISL    int
	OSL    int
	Fields Fields
	Search []SearchSpace
}

// SearchSpace is one search-space element.
type SearchSpace struct {
	Fields       Fields
	TP, EP, PP   int
	SpecDecoding string
	Conc         []int // expanded concurrency points
	SrtRecipe    string
	KVOffloading string
	// ConfigFiles are CONFIG_FILE= values of the additional settings of
	// prefill/decode blocks or an aggregated worker block.
	ConfigFiles []string
}

// InputProblem is an input the change-set model could not use.
type InputProblem struct {
	Path string
	Err  string
	// Kind is empty for an input that could not be read or parsed, or
	// names a rule the input was read and found to break
	// (ProblemChangelogSchema, ProblemChangelogEdit,
	// ProblemChangelogNoMatch). Checks treat them
	// alike: the rows that need the input cannot pass.
	Kind string
	// Ref is the commit the input was read at when it is not H (the base
	// or the default branch), so that whether it exists is asked there.
	Ref string
}

// Text says which input could not be read and why. The reader's message
// stays as it wrote it, in a code span in the Chinese text.
func (p InputProblem) Text() checks.Text {
	return checks.T(p.Path+": "+p.Err, p.Path+"："+checks.Code(p.Err))
}

// IsComment reports whether a diff or file line is a shell/YAML comment.
func IsComment(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "#")
}

// Loc is "path:line", or the path alone for an unknown line.
func Loc(p string, line int) string {
	if line <= 0 {
		return p
	}
	return fmt.Sprintf("%s:%d", p, line)
}
