package repo

import (
	"strings"
	"testing"
)

// A recipe whose benchmark command is not bash is not read: its settings
// cannot be known. The error names the file line of the command's fault.
func TestRecipeCommandNotBash(t *testing.T) {
	src := "benchmark:\n  type: custom\n  command: |\n    for c in 1 2; do\n      run --conc \"$c\"\n"
	sets, err := ParseSrtRecipe("r.yaml", []byte(src))
	if err == nil || sets != nil || !strings.Contains(err.Error(), "its command at line 3 is not bash: r.yaml:4:") {
		t.Fatalf("ParseSrtRecipe = %v, %v", sets, err)
	}
	sets, err = ParseSrtRecipe("r.yaml", []byte("benchmark:\n  command: |\n    read -r -a xs <<< \"$CONCS\"\n    run --use-chat-template\n"))
	if err != nil || len(sets) != 2 || sets[1].Name != "--use-chat-template" || sets[1].Line != 4 {
		t.Fatalf("ParseSrtRecipe = %+v, %v", sets, err)
	}
}
