package yamlx

import (
	"errors"
	"testing"
)

func TestSplitTopLevel(t *testing.T) {
	for _, tc := range []struct {
		text string
		keys []string // nil: not chunkable
	}{
		{"a:\n  x: 1\n# c: &no\nb: 2\n", []string{"a", "b"}},
		{"a:\n  x: 1 # <<: *no\nb: \"x*y<z\"\n", []string{"a", "b"}},
		{"a: &x\n  y: 1\nb: *x\n", nil},
		{"a:\n  y: 1\nb:\n  <<: {c: 1}\n", nil},
		{"a:\n  y: 1\n\nb:\n  z: !tag v\n", nil},
		{"a: 1\n- b\n", nil},
		{"a: 1\nb: 2", []string{"a", "b"}},
	} {
		cs, err := SplitTopLevel(tc.text)
		if tc.keys == nil {
			if !errors.Is(err, ErrNotChunkable) {
				t.Errorf("%q: %v %+v, want ErrNotChunkable", tc.text, err, cs)
			}
			continue
		}
		var keys []string
		for _, c := range cs {
			keys = append(keys, c.Key)
		}
		if err != nil || len(keys) != len(tc.keys) || keys[0] != tc.keys[0] || keys[len(keys)-1] != tc.keys[len(tc.keys)-1] {
			t.Errorf("%q: keys %q, %v; want %q", tc.text, keys, err, tc.keys)
		}
	}
}
