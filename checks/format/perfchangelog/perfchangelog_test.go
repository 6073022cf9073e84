package perfchangelog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

func TestMatchConfigKeys(t *testing.T) {
	keys := []string{"dsr1-fp4-b200-sglang", "dsr1-fp8-h200-trt", "dsv4-fp4-b300-vllm", "qwen3.5-fp8-b200-sglang"}
	for _, tc := range []struct {
		keys      []string
		want      []string
		unmatched []string
	}{
		{[]string{"dsr1*"}, []string{"dsr1-fp4-b200-sglang", "dsr1-fp8-h200-trt"}, nil},
		{[]string{"*-b*00-*"}, []string{"dsr1-fp4-b200-sglang", "dsv4-fp4-b300-vllm", "qwen3.5-fp8-b200-sglang"}, nil},
		{[]string{"qwen3.5-fp8-b200-sglang"}, []string{"qwen3.5-fp8-b200-sglang"}, nil},
		// Only '*' is special, as in the sweep tool: '?', '.' and brackets are literal.
		{[]string{"qwen3?5*"}, nil, []string{"qwen3?5*"}},
		{[]string{"qwen3.5*"}, []string{"qwen3.5-fp8-b200-sglang"}, nil},
		{[]string{"qwen3x5*"}, nil, []string{"qwen3x5*"}},
		{[]string{"*-b[23]00-*"}, nil, []string{"*-b[23]00-*"}},
		{[]string{"[unclosed"}, nil, []string{"[unclosed"}},
		// A literal key must be a master key; a pattern matches whole keys.
		{[]string{"dsr1-fp4-b200"}, nil, []string{"dsr1-fp4-b200"}},
		{[]string{"dsr1-fp4-b200*", "missing-key", "dsr1*"}, []string{"dsr1-fp4-b200-sglang", "dsr1-fp8-h200-trt"}, []string{"missing-key"}},
		{[]string{"*"}, keys, nil},
	} {
		got, un := MatchKeys(tc.keys, keys)
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(un, tc.unmatched) {
			t.Errorf("%q: got %q unmatched %q, want %q unmatched %q", tc.keys, got, un, tc.want, tc.unmatched)
		}
	}
}

func TestChangelogDelta(t *testing.T) {
	entry := func(key, link string) string {
		return "- config-keys:\n    - " + key + "\n  description:\n    - \"change " + key + "\"\n  pr-link: " + link + "\n"
	}
	a, b, c, d := entry("a", "L/1"), entry("b", "L/2"), entry("c", "L/3"), entry("d", "L/4")
	// b, reformatted: flow style, other key order, quoted differently.
	bFlow := "- {pr-link: \"L/2\", description: ['change b'], config-keys: [b]}\n"
	bEdited := strings.Replace(b, "L/2", "L/20", 1)
	for _, tc := range []struct {
		name        string
		base, head  string
		added, gone []string // pr-links
	}{
		{"appended", a + b, a + b + c, []string{"L/3"}, nil},
		{"mid-file entry, another PR's entry last", a + b + d, a + b + c + "\n" + d, []string{"L/3"}, nil},
		{"two added around the base", b, a + b + c, []string{"L/1", "L/3"}, nil},
		{"moved", a + b + c, b + a + c, nil, nil},
		{"reformatted", a + b, a + bFlow, nil, nil},
		{"reformatted and one added", a + b, bFlow + c + a, []string{"L/3"}, nil},
		{"duplicate of an existing entry", a + b, a + b + b, []string{"L/2"}, nil},
		{"edited", a + b, a + bEdited, []string{"L/20"}, []string{"L/2"}},
		{"removed", a + b + c, a + c, nil, []string{"L/2"}},
		{"empty base", "", a, []string{"L/1"}, nil},
		{"unchanged", a + b, a + b, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _, err := Parse([]byte(tc.base))
			if err != nil {
				t.Fatal(err)
			}
			head, _, err := Parse([]byte(tc.head))
			if err != nil {
				t.Fatal(err)
			}
			added, gone := Delta(base, head)
			links := func(es []Entry) []string {
				var out []string
				for _, e := range es {
					out = append(out, e.PRLink)
				}
				return out
			}
			if got := links(added); !reflect.DeepEqual(got, tc.added) {
				t.Errorf("added %q, want %q", got, tc.added)
			}
			if got := links(gone); !reflect.DeepEqual(got, tc.gone) {
				t.Errorf("gone %q, want %q", got, tc.gone)
			}
		})
	}
}

func TestChangelogDeltaLines(t *testing.T) {
	base, _, _ := Parse([]byte("- config-keys: [a]\n  description: [x]\n  pr-link: L/1\n"))
	head, _, _ := Parse([]byte("- config-keys: [c]\n  description: [x]\n  pr-link: L/3\n- config-keys: [a]\n  description: [x]\n  pr-link: L/1\n"))
	added, _ := Delta(base, head)
	if len(added) != 1 || added[0].Line != 1 || added[0].ConfigKeys[0] != "c" {
		t.Fatalf("added = %+v, want the entry at H line 1", added)
	}
}

func TestEntryValueComparesParsedValues(t *testing.T) {
	parse := func(s string) string {
		es, _, err := Parse([]byte(s))
		if err != nil || len(es) != 1 {
			t.Fatalf("%q: %v", s, err)
		}
		return es[0].value
	}
	same := [][2]string{
		{"- {a: 1, b: [x, y]}\n", "- b:\n  - \"x\"\n  - 'y'\n  a: 1\n"},
		{"- {a: &x [1], b: *x}\n", "- {a: [1], b: [1]}\n"},
		{"- {a: ~}\n", "- {a: null}\n"},
	}
	for _, p := range same {
		if parse(p[0]) != parse(p[1]) {
			t.Errorf("%q and %q differ: %s vs %s", p[0], p[1], parse(p[0]), parse(p[1]))
		}
	}
	differ := [][2]string{
		{"- {a: 1}\n", "- {a: \"1\"}\n"},
		{"- {a: [x, y]}\n", "- {a: [y, x]}\n"},
		{"- {a: true}\n", "- {a: \"true\"}\n"},
		{"- {a: 1, a: 2}\n", "- {a: 2}\n"},
	}
	for _, p := range differ {
		if parse(p[0]) == parse(p[1]) {
			t.Errorf("%q and %q compare equal", p[0], p[1])
		}
	}
}

func FuzzChangelogDelta(f *testing.F) {
	f.Add([]byte("- {config-keys: [a], description: [x], pr-link: y}\n"), []byte("- {config-keys: [b], description: [x], pr-link: z}\n- {config-keys: [a], description: [x], pr-link: y}\n"))
	f.Add([]byte("- &a [*a]\n"), []byte("- {a: 1, a: 2}\n"))
	f.Fuzz(func(t *testing.T, base, head []byte) {
		b, _, errB := Parse(base)
		h, _, errH := Parse(head)
		if errB != nil || errH != nil {
			return
		}
		added, gone := Delta(b, h)
		// Every entry of H is either added or matched by one of the base's.
		if len(h)-len(added) != len(b)-len(gone) {
			t.Fatalf("%d head entries, %d added; %d base entries, %d gone", len(h), len(added), len(b), len(gone))
		}
		if a, _ := Delta(h, h); len(a) != 0 {
			t.Fatalf("a changelog adds %d entries to itself", len(a))
		}
	})
}

func TestParseChangelog(t *testing.T) {
	data, err := checkstest.ReadSample("perf-changelog.tail.yaml")
	if err == nil {
		es, ps, err := Parse(data)
		if err != nil || len(es) < 5 {
			t.Fatalf("sample: %d entries, %v, %v", len(es), ps, err)
		}
	}
	es, ps, err := Parse([]byte("- config-keys: [a*]\n  description: [x]\n  pr-link: y\n  bogus: 1\n  append-only: true\n"))
	if err != nil || len(es) != 1 || !es[0].AppendOnly || len(ps) != 1 || !strings.Contains(ps[0], "bogus: unknown key") {
		t.Fatalf("%+v %v %v", es, ps, err)
	}
	if _, _, err := Parse([]byte("a: b\n")); err == nil {
		t.Fatal("non-list accepted")
	}
	// The fields the repository's schema requires, and its scenario types.
	for text, want := range map[string]string{
		"- config-keys: [a]\n  description: [x]\n":                                        "line 1: entry has no pr-link",
		"- config-keys: [a]\n  pr-link: y\n":                                              "line 1: entry has no description",
		"- config-keys: [a]\n  description: []\n  pr-link: y\n":                           "line 2: description: must not be empty",
		"- config-keys: [a]\n  description: x\n  pr-link: y\n":                            "line 2: description: wrong type",
		"- description: [x]\n  pr-link: y\n":                                              "line 1: entry has no config-keys",
		"- config-keys: [a]\n  description: [x]\n  pr-link: y\n  scenario-type: [8k1k]\n": `scenario-type: unknown scenario type "8k1k"`,
	} {
		es, ps, err := Parse([]byte(text))
		if err != nil || len(es) != 1 || len(ps) != 1 || !strings.Contains(ps[0], want) || !reflect.DeepEqual(es[0].Problems, ps) {
			t.Errorf("%q: problems %q, want %q", text, ps, want)
		}
	}
}
