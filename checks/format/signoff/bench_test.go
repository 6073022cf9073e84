package signoff

import (
	"strconv"
	"strings"
	"testing"
)

// BenchmarkParse reads a sign-off of the template's shape: 16 items with
// links, one nested, the Additional detail section and the Signed: line.
func BenchmarkParse(b *testing.B) {
	var s strings.Builder
	s.WriteString("As a PR reviewer and CODEOWNER, I have reviewed this and have:\n")
	for i := 0; i < 16; i++ {
		s.WriteString("- [x] Confirmed that check " + strconv.Itoa(i) + " holds, see [the run](https://github.com/o/r/actions/runs/" + strconv.Itoa(i) + ") and `results.json`\n")
	}
	s.WriteString("  - [x] I linked the matching upstream PR and confirmed that it is **MERGED**\n\n### Additional detail section:\n" +
		"- Recipe: https://github.com/sgl-project/sglang/pull/21873 (merged)\n- Draft: stored BF16, effective BF16\n\nSigned: `amd-owner-a`\n")
	body := s.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if so := Parse(body); len(so.Items) != 17 {
			b.Fatalf("%d items", len(so.Items))
		}
	}
}
