package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/verdict-bot/verdict/checks"
)

// maxArtifactJSON bounds one artifact JSON file; the collectors' outputs are
// far below it.
const maxArtifactJSON = 32 << 20

// decodeArtifactJSON decodes a JSON document the Python collectors wrote. Python's
// json module emits NaN and ±Infinity as bare tokens, which are not JSON; they
// are quoted first so a non-finite measurement reads as "not a real number"
// (an invalid point or row) instead of breaking the whole file, and is never
// mistaken for an absent (null) value.
func decodeArtifactJSON(data []byte, v any) error {
	if len(data) > maxArtifactJSON {
		return fmt.Errorf("%d bytes is over the %d-byte cap: %w", len(data), maxArtifactJSON, checks.ErrTooLarge)
	}
	d := json.NewDecoder(bytes.NewReader(sanitizePyJSON(data)))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", checks.ErrMalformed, err)
	}
	return nil
}

// sanitizePyJSON replaces the bare tokens NaN, Infinity and -Infinity outside
// strings with quoted strings. The output has the same structure otherwise.
func sanitizePyJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			out = append(out, c)
			continue
		}
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("NaN")):
			out, i = append(out, `"NaN"`...), i+2
		case bytes.HasPrefix(rest, []byte("-Infinity")):
			out, i = append(out, `"-Infinity"`...), i+8
		case bytes.HasPrefix(rest, []byte("Infinity")):
			out, i = append(out, `"Infinity"`...), i+7
		default:
			out = append(out, c)
		}
	}
	return out
}

// realNumber reads a JSON value as a real number: booleans, strings, null and
// non-finite values are not numbers.
func realNumber(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// asText reads a JSON value as text; numbers and booleans are formatted, so a
// row that writes "isl": 8192 or "isl": "8192" reads the same.
func asText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return ""
}

// asBool reads true, "true", "True" and 1 as true.
func asBool(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		return strings.EqualFold(t, "true")
	case json.Number:
		f, _ := t.Float64()
		return f == 1
	}
	return false
}

// dig follows keys through nested objects.
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[k]
	}
	return v
}

// objects decodes a JSON array of objects or a single object.
func objects(data []byte) ([]map[string]any, error) {
	var v any
	if err := decodeArtifactJSON(data, &v); err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case map[string]any:
		return []map[string]any{t}, nil
	case []any:
		rows := make([]map[string]any, 0, len(t))
		for i, e := range t {
			o, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: element %d is not an object", checks.ErrMalformed, i)
			}
			rows = append(rows, o)
		}
		return rows, nil
	}
	return nil, fmt.Errorf("%w: expected an object or an array of objects", checks.ErrMalformed)
}

// artifactReads bounds the artifacts one check reads at once: every
// artifact of a run the check wants is asked for together (the Source
// bounds the downloads that really go out).
const artifactReads = 64

// eachArtifact runs f for every artifact, at most artifactReads at once, and
// waits for all of them.
func eachArtifact(arts []checks.Artifact, f func(i int, a checks.Artifact)) {
	sem := make(chan struct{}, artifactReads)
	var wg sync.WaitGroup
	for i, a := range arts {
		wg.Add(1)
		go func(i int, a checks.Artifact) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(i, a)
		}(i, a)
	}
	wg.Wait()
}
