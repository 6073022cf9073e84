package render

import (
	"strings"
	"testing"

	"github.com/verdict-bot/verdict/checks"
)

// BodyState reads back the verdict a published body announces: PASS or
// WARN when the line after the marker is that header, else REJECTED. Only
// the tests read a verdict back out of the text, to show that a Body's
// Overall is always what its text says.
func BodyState(body string) checks.Overall {
	_, rest, _ := strings.Cut(body, "\n")
	header, _, _ := strings.Cut(rest, "\n")
	switch header {
	case HeaderPass:
		return checks.VerdictPass
	case HeaderWarn:
		return checks.VerdictWarn
	}
	return checks.VerdictRejected
}

// TestBodyAnnouncesItsOverall: whatever Render makes, valid or refused by
// the guard, carries the verdict its own text announces, for its key and
// commit, so the publisher can take the status from the value.
func TestBodyAnnouncesItsOverall(t *testing.T) {
	missing := verdictFor(baseRows()[1:]) // Check 0's row dropped: the guard refuses it
	missing.Overall = checks.VerdictPass
	for _, tt := range []struct {
		name    string
		v       Verdict
		refused bool
	}{
		{"pass", verdictFor(baseRows()), false},
		{"warn", verdictFor(with(baseRows(), 14, checks.Warn, "few points", "点数不足")), false},
		{"rejected", verdictFor(with(baseRows(), 1, checks.Fail, "no sweep", "没有扫描")), false},
		{"refused by the guard", missing, true},
	} {
		b, err := Render(tt.v)
		if (err != nil) != tt.refused {
			t.Fatalf("%s: Render error = %v", tt.name, err)
		}
		if b.Overall() != BodyState(b.Markdown()) {
			t.Errorf("%s: Overall %s, the text announces %s", tt.name, b.Overall(), BodyState(b.Markdown()))
		}
		if b.Key() != tt.v.Key || b.HeadSHA() != tt.v.HeadSHA || b.English()+b.Chinese() != b.Markdown() ||
			!strings.HasPrefix(b.Chinese(), "\n<details>") {
			t.Errorf("%s: body parts disagree: key %q sha %q", tt.name, b.Key(), b.HeadSHA())
		}
	}
	if b, err := Render(Verdict{Key: "nonsense", HeadSHA: testSHA}); err == nil || !b.IsZero() {
		t.Errorf("bad input rendered %+v, %v", b, err)
	}
}
