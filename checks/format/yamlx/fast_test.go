package yamlx

import (
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/verdict-bot/verdict/checks/checkstest"
)

// fastAgrees fails when fastDecode answers differently from yaml.v3.
func fastAgrees(t *testing.T, text string) bool {
	t.Helper()
	got, ok := fastDecode(text)
	if !ok {
		return false
	}
	var want map[string]any
	if err := yaml.Unmarshal([]byte(text), &want); err != nil {
		t.Fatalf("fast decoder accepted what yaml.v3 rejects (%v):\n%s", err, text)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fast decoder disagrees with yaml.v3:\n%s\nfast: %#v\nv3:   %#v", text, got, want)
	}
	return true
}

func TestFastDecodeAgreesWithYAMLv3(t *testing.T) {
	accepted := 0
	var chunks []string
	if data, err := checkstest.ReadSample("configs/amd-master.yaml"); err == nil {
		cs, err := SplitTopLevel(string(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			chunks = append(chunks, string(c.Text))
		}
	}
	chunks = append(chunks,
		"a:\n  b: 1\n  c: [1, 2.5, x, \"y\", 'z''s']\n  d: { e: true, f: ~, g: [] , h: {} }\n",
		"a:\n  list:\n  - isl: 8192\n    osl: 1024\n    search-space:\n    - { tp: 8 }\n  - 3\n",
		"a:\n  s: \"tab\\tq\\\"\"\n  n: -12\n  f: +0.5\n  k: v # comment\n",
	)
	for _, c := range chunks {
		if fastAgrees(t, c) {
			accepted++
		}
	}
	if accepted < len(chunks)*9/10 {
		t.Fatalf("fast path accepted only %d of %d chunks", accepted, len(chunks))
	}
	for _, bad := range []string{"a: &x 1\n", "a: |\n  x\n", "a:\n  b: 1\n  b: 2\n", "a: 0x10\n", "a: 2026-01-01\n", "a: yes\n", "a: [1,\n  2]\n"} {
		if _, ok := fastDecode(bad); ok {
			t.Errorf("fast path accepted %q", bad)
		}
	}
}

func FuzzFastYAML(f *testing.F) {
	f.Add("a:\n  b: [1, 2]\n  c: { d: x, e: 'y' }\n  f:\n  - g: 1\n    h: 2\n")
	f.Add("k:\n  image: lmsysorg/sglang:v0.5\n  conc-list: [ 8, 16 ]\n  x: \"q\"\n")
	f.Add("a:\n- 1\n- - 2\n")
	f.Fuzz(func(t *testing.T, text string) {
		fastAgrees(t, text)
	})
}

// BenchmarkParseEntry reads every entry of the sample master config through
// the fast parser, as the change-set model reads each distinct entry once.
func BenchmarkParseEntry(b *testing.B) {
	data, err := checkstest.ReadSample("configs/amd-master.yaml")
	if err != nil {
		b.Skip(err)
	}
	cs, err := SplitTopLevel(string(data))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var ps Parser
	for b.Loop() {
		for _, c := range cs {
			if _, ok := ps.Entry(c.Text); !ok {
				b.Fatalf("entry %s is outside the subset", c.Key)
			}
		}
	}
}
