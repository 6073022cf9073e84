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
- branch: amd/feature
  sha: aaaa
  base: bbbb
  rows:
    10: {status: FAIL, why: "git apply into site-packages"}
- branch: nv/other
  rows:
    6: {status: PASS, why: "y"}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{PRs: []Result{{PR: PR{Number: 1}, Rows: []Row{
		{Number: 6, Status: "PASS"}, {Number: 7, Status: "PASS"}, {Number: 8, Status: "FAIL", Reason: "Needs human review: x"},
		{Number: 9, Status: "PASS"}, {Number: 10, Status: "FAIL", Reason: "patch"}, {Number: 11, Status: "N/A"},
	}}, {PR: PR{Branch: "amd/feature"}, Rows: []Row{{Number: 10, Status: "PASS", Reason: "no patch"}}}}}
	sc := Score(rep, exp)
	if sc.Judged != 2 || sc.Rows != 7 || sc.Agree != 3 || sc.FalsePass != 2 || sc.FalseFail != 1 || sc.Mixed != 1 {
		t.Fatalf("scorecard %+v", sc)
	}
	if strings.Join(sc.NotReplayed, " ") != "#2 nv/other" {
		t.Errorf("not replayed %v", sc.NotReplayed)
	}
	var b bytes.Buffer
	sc.Text(&b)
	for _, want := range []string{"7 rows: 3 agree (42.9%), 2 false PASS, 1 false FAIL", "#1 check 7: judged FAIL (deprecated model), got PASS",
		"amd/feature check 10: judged FAIL (git apply into site-packages), got PASS"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := LoadExpectations([]byte("- pr: 1\n  rows:\n    6: {status: OK}\n")); err == nil {
		t.Error("an unknown status was accepted")
	}
}
