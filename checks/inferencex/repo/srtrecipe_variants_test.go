package repo

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseSrtRecipeVariants(t *testing.T) {
	const recipe = `base:
  roles:
    decode:
      args:
        speculative-num-steps: 3
      env:
        SGLANG_SIMULATE_ACC_LEN: "3.31"
override_c1:
  roles:
    decode:
      args:
        speculative-num-steps: 4
zip_override_bands:
  name: [mid, high, top]
  roles:
    decode:
      args:
        speculative-num-steps: [2, 1, null]
        mem-fraction-static: [0.85]
      env:
        SGLANG_SIMULATE_ACC_LEN: ["2.68", "1.91", ~]
  benchmark:
    concurrencies: [[4, 8], [16], [32]]
`
	sets, err := ParseSrtRecipe("r.yaml", []byte(recipe))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range sets {
		switch {
		case s.Name == "speculative-num-steps", s.Name == "SGLANG_SIMULATE_ACC_LEN", s.Name == "mem-fraction-static", strings.HasSuffix(s.Name, "benchmark.concurrencies"):
			v := s.Value
			if s.Null {
				v = "<null>"
			}
			got[s.Variant] = append(got[s.Variant], fmt.Sprintf("%s=%s@%d", s.Name, v, s.Line))
		}
	}
	want := map[string]string{
		"":                      "speculative-num-steps=3@5 SGLANG_SIMULATE_ACC_LEN=3.31@7",
		"override_c1":           "speculative-num-steps=4@12",
		"zip_override_bands[0]": "speculative-num-steps=2@18 mem-fraction-static=0.85@19 SGLANG_SIMULATE_ACC_LEN=2.68@21 zip_override_bands.benchmark.concurrencies=4@23 zip_override_bands.benchmark.concurrencies=8@23",
		"zip_override_bands[1]": "speculative-num-steps=1@18 mem-fraction-static=0.85@19 SGLANG_SIMULATE_ACC_LEN=1.91@21 zip_override_bands.benchmark.concurrencies=16@23",
		"zip_override_bands[2]": "speculative-num-steps=<null>@18 mem-fraction-static=0.85@19 SGLANG_SIMULATE_ACC_LEN=<null>@21 zip_override_bands.benchmark.concurrencies=32@23",
	}
	if len(got) != len(want) {
		t.Errorf("variants %v", got)
	}
	for v, w := range want {
		if g := strings.Join(got[v], " "); g != w {
			t.Errorf("variant %q:\n got %s\nwant %s", v, g, w)
		}
	}
}

func TestZipSliceBounds(t *testing.T) {
	// Lists of different lengths (srtctl refuses them) slice to null past
	// the end of the shorter one; nothing panics.
	sets, err := ParseSrtRecipe("r.yaml", []byte("zip_override_x:\n  roles:\n    agg:\n      args:\n        a: [1, 2, 3]\n        b: [1, 2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var nulls []string
	for _, s := range sets {
		if s.Null {
			nulls = append(nulls, s.Variant+" "+s.Name)
		}
	}
	if strings.Join(nulls, ",") != "zip_override_x[2] b" {
		t.Fatalf("nulls %q", nulls)
	}
}
