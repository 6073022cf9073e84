package modelsmd

import (
	"reflect"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestParseSample(t *testing.T) {
	data, err := checkstest.ReadSample("MODELS.md")
	if err != nil {
		t.Skip("sample not available")
	}
	doc := Parse(string(data))
	if len(doc.Problems) != 0 {
		t.Fatalf("problems: %+v", doc.Problems)
	}
	if len(doc.Notices) != 2 || doc.Notices[0].LastDay != time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("notices %+v", doc.Notices)
	}
	// Only the first table of the Aug 3 notice is enacted; Aug 6 is a sentence.
	if n := doc.Notices[0].Rules; len(n) != 3 || n[2].Precision != "bf16" {
		t.Fatalf("aug 3 rules %+v", n)
	}
	if n := doc.Notices[1].Rules; len(n) != 1 || n[0].Prefixes[0] != "kimik2.5" || n[0].Scenarios[0] != "Single-turn 8k1k" {
		t.Fatalf("aug 6 rules %+v", n)
	}
	var retired []string
	for _, r := range doc.Matrix {
		if r.Retired {
			retired = append(retired, r.Prefixes...)
		}
	}
	if !reflect.DeepEqual(retired, []string{"glm5", "glm5.1", "minimaxm2.5", "kimik2.5", "gptoss", "llama70b"}) {
		t.Fatalf("retired %q", retired)
	}
	var dep []string
	for _, s := range doc.Scenarios {
		if s.Deprecated {
			dep = append(dep, s.Name+"@"+s.Since.Format("2006-01-02"))
		}
	}
	if !reflect.DeepEqual(dep, []string{"Single-turn 1k1k@2026-07-17", "Single-turn 1k8k@2026-03-27"}) {
		t.Fatalf("deprecated scenarios %q", dep)
	}
}
func FuzzParse(f *testing.F) {
	f.Add("## Deprecation Notice\n### Monday, August 3, 2026\n| Model | Deprecated | Remains |\n|---|---|---|\n| X (`x`) | Single-turn 8k1k | Agentic coding |\n")
	f.Add("## Model support matrix\n| Model | Prefix | Date added | Active scenarios | Deprecated scenarios |\n|---|---|---|---|---|\n| A | `a` | 2025 | None (retired 2026-01-01) | Single-turn 1k1k (x, y), all bf16 recipes |\n")
	f.Add("## Scenarios\n| Scenario | ISL/OSL | Status |\n|---|---|---|\n| Single-turn 1k1k | 1024 / 1024 | Deprecated since 2026-07-17 except (a) |\n")
	f.Fuzz(func(t *testing.T, text string) {
		doc := Parse(text)
		for _, n := range doc.Notices {
			if n.LastDay.IsZero() {
				t.Fatal("notice without a date")
			}
		}
		for _, r := range doc.Matrix {
			if len(r.Prefixes) == 0 {
				t.Fatal("matrix row without prefix")
			}
		}
	})
}
