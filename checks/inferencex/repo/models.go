package repo

import (
	"fmt"
	"slices"
	"sort"
)

// ScenarioName maps a master-config scenario to its MODELS.md name.
func ScenarioName(sc Scenario) string {
	switch sc.Type {
	case "agentic-coding":
		return "Agentic coding"
	case "fixed-seq-len":
		if sc.ISL > 0 && sc.OSL > 0 && sc.ISL%1024 == 0 && sc.OSL%1024 == 0 {
			return fmt.Sprintf("Single-turn %dk%dk", sc.ISL/1024, sc.OSL/1024)
		}
		return fmt.Sprintf("Single-turn %d/%d", sc.ISL, sc.OSL)
	}
	return sc.Type
}

// EntryScenarios are the MODELS.md names of an entry's scenarios, sorted.
func EntryScenarios(e *ConfigEntry) []string {
	var out []string
	for _, sc := range e.Scenarios {
		if n := ScenarioName(sc); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
