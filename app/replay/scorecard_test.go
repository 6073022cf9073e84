package replay

import (
	"bytes"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	exp, err := LoadExpectations([]byte(`
- pr: 1
  rows:
    6: {status: PASS, why: "upstream image"}
    7: {status: FAIL, why: "deprecated model"}
    8: {status: REVIEW, why: "hf-overrides"}
    9: {status: N/A, why: "no client change"}
    10: {status: PASS, why: "no patch"}
    11: {status: N/A, why: "no spec"}
- pr: 2
  rows:
    6: {status: PASS, why: "x"}
- pr: 3
  skipped: "docs only"
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{PRs: []Result{{PR: PR{Number: 1}, Rows: []Row{
		{Number: 6, Status: "PASS"}, {Number: 7, Status: "PASS"}, {Number: 8, Status: "FAIL", Reason: "Needs human review: x"},
		{Number: 9, Status: "PASS"}, {Number: 10, Status: "FAIL", Reason: "patch"}, {Number: 11, Status: "N/A"},
	}}}}
	sc := Score(rep, exp)
	if sc.Judged != 1 || sc.Rows != 6 || sc.Agree != 3 || sc.FalsePass != 1 || sc.FalseFail != 1 || sc.Mixed != 1 {
		t.Fatalf("scorecard %+v", sc)
	}
	if len(sc.NotReplayed) != 1 || sc.NotReplayed[0] != 2 {
		t.Errorf("not replayed %v", sc.NotReplayed)
	}
	var b bytes.Buffer
	sc.Text(&b)
	if !strings.Contains(b.String(), "6 rows: 3 agree (50.0%), 1 false PASS, 1 false FAIL") || !strings.Contains(b.String(), "#1 check 7: judged FAIL (deprecated model), got PASS") {
		t.Errorf("text:\n%s", b.String())
	}
	if _, err := LoadExpectations([]byte("- pr: 1\n  rows:\n    6: {status: OK}\n")); err == nil {
		t.Error("an unknown status was accepted")
	}
}
