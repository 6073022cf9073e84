package main

import (
	"strings"
	"testing"
)

// Bad-input scenarios on copies of the e2e sample (testdata/fixtures/bad-*):
// bad input gets a clear message in the rows that need it, the other rows
// carry on, nothing crashes and nothing passes by default. `verdict check`
// exits 2 only when no verdict is possible.

func badRows(pass []int, rows map[int]edgeRow) map[int]edgeRow {
	for _, n := range pass {
		if _, ok := rows[n]; !ok {
			rows[n] = edgeRow{status: "PASS"}
		}
	}
	return rows
}

// S1: the master config at H does not parse (malformed flow mapping, or a
// duplicate key). Every row that needs the configs names the file; the
// CODEOWNER, sweep and reuse rows are unaffected.
func TestBadMasterConfig(t *testing.T) {
	for _, tc := range []struct{ fixture, err string }{
		{"bad-s1-yaml", "did not find expected ',' or '}'"},
		{"bad-s1-dupkey", "already defined at line 20"},
	} {
		code, v, _ := edgeRun(t, tc.fixture, "")
		if code != exitRejected {
			t.Errorf("%s: exit %d, want %d", tc.fixture, code, exitRejected)
		}
		cfg := "inferencex-e2e/configs/amd-master.yaml"
		unv := edgeRow{status: "FAIL", want: []string{"could not be verified", cfg, tc.err}}
		edgeAssert(t, tc.fixture, v, "REJECTED", badRows([]int{0, 1, 4, 8, 10}, map[int]edgeRow{
			// The run's scores pass, but the same-image proof needs the configs.
			2: {status: "FAIL", want: []string{"could not be verified", cfg}},
			3: unv, 6: unv, 7: unv, 9: unv, 11: unv, 12: unv, 13: unv,
			// Conditional items cannot be excused while Check 12 and others fail (§Check 5).
			5:  {status: "FAIL", want: []string{"Needs human review", "append-only"}},
			14: {status: "WARN", want: []string{"affected curves unverifiable", cfg}},
			15: {status: "WARN", want: []string{cfg + " unreadable"}},
		}))
	}
}

// S2: perf-changelog.yaml at H does not parse: Check 12 names it, the
// config rows carry on.
func TestBadChangelog(t *testing.T) {
	code, v, _ := edgeRun(t, "bad-s2-changelog", "")
	if code != exitRejected {
		t.Errorf("exit %d", code)
	}
	edgeAssert(t, "bad-s2-changelog", v, "REJECTED", badRows([]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15}, map[int]edgeRow{
		5:  {status: "FAIL", want: []string{"Needs human review", "append-only"}},
		12: {status: "FAIL", want: []string{"could not be verified", "inferencex-e2e/perf-changelog.yaml", "does not parse"}},
	}))
}

// S3: 260 commits; the only green sweep ran on a commit the 250 cap hides.
func TestBadCommitCap(t *testing.T) {
	code, v, _ := edgeRun(t, "bad-s3-cap", "")
	if code != exitRejected {
		t.Errorf("exit %d", code)
	}
	edgeAssert(t, "bad-s3-cap", v, "REJECTED", badRows([]int{0, 3, 6, 7, 8, 9, 10, 11, 13}, map[int]edgeRow{
		1:  {status: "FAIL", want: []string{"No passing sweep", "capped at 250 commits"}},
		2:  {status: "FAIL", want: []string{"No qualifying in-PR run"}},
		4:  {status: "PASS", want: []string{"/use 30123456789", "first 250 commits"}},
		5:  {status: "FAIL", want: []string{"Needs human review"}},
		12: {status: "N/A"},
		14: {status: "WARN", want: []string{"unverifiable"}},
		15: {status: "WARN", want: []string{"30123456789", "truncated"}},
	}))
}

// S4: every artifact of the chosen run expired.
func TestBadExpiredArtifacts(t *testing.T) {
	code, v, _ := edgeRun(t, "bad-s4-expired", "")
	if code != exitRejected {
		t.Errorf("exit %d", code)
	}
	edgeAssert(t, "bad-s4-expired", v, "REJECTED", badRows([]int{0, 1, 3, 6, 7, 8, 9, 10, 11, 13, 15}, map[int]edgeRow{
		2:  {status: "FAIL", want: []string{"expired", "30123456789"}},
		4:  {status: "PASS", want: []string{"Not currently eligible", "expired"}},
		5:  {status: "FAIL", want: []string{"Needs human review", "if any criterion above"}},
		12: {status: "N/A"},
		14: {status: "WARN", want: []string{"unverifiable", "expired"}},
	}))
}

// S5: the linked upstream recipe PR cannot be read (its repository is not
// served) and no published page is linked.
func TestBadUpstreamUnreachable(t *testing.T) {
	code, v, _ := edgeRun(t, "bad-s5-upstream", "")
	if code != exitRejected {
		t.Errorf("exit %d", code)
	}
	edgeAssert(t, "bad-s5-upstream", v, "REJECTED", badRows([]int{0, 1, 2, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15}, map[int]edgeRow{
		3:  {status: "FAIL", want: []string{"Upstream merge status could not be verified", "sgl-project/sglang#21873"}},
		5:  {status: "FAIL", want: []string{"Needs human review", "if any criterion above"}},
		12: {status: "N/A"},
	}))
}

// S6: a CRLF sign-off (nested sub-item included) parses like LF; a sign-off
// with the phrase but no checklist fails Check 5.
func TestBadSignOff(t *testing.T) {
	code, v, _ := edgeRun(t, "bad-s6-signoff", "3412")
	if code != exitPass {
		t.Errorf("CRLF: exit %d", code)
	}
	edgeAssert(t, "bad-s6-signoff#3412", v, "PASS", badRows([]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15}, map[int]edgeRow{
		5:  {status: "PASS", want: []string{"All 17 current template items present"}},
		12: {status: "N/A"},
	}))
	code, v, _ = edgeRun(t, "bad-s6-signoff", "3413")
	if code != exitRejected {
		t.Errorf("no checklist: exit %d", code)
	}
	edgeAssert(t, "bad-s6-signoff#3413", v, "REJECTED", badRows([]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 14, 15}, map[int]edgeRow{
		5:  {status: "FAIL", want: []string{"No checklist items found", "inferencex-e2e/docs/PR_REVIEW_CHECKLIST.md"}},
		12: {status: "N/A"},
		13: {status: "FAIL", want: []string{"Draft precision could not be verified"}},
	}))
}

// S7: GitHub omits a changed file's patch (huge diff).
func TestBadNoPatch(t *testing.T) {
	// #3412: the master config's patch is missing. Master configs are
	// compared as parsed documents at base and H, so the verdict is the
	// same as with the patch: the sample's PASS.
	code, v, _ := edgeRun(t, "bad-s7-nopatch", "3412")
	if code != exitPass {
		t.Errorf("#3412: exit %d", code)
	}
	edgeAssert(t, "bad-s7-nopatch#3412", v, "PASS", badRows([]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 15}, map[int]edgeRow{
		5:  {status: "PASS", want: []string{"All 17 current template items present"}},
		12: {status: "N/A"},
	}))

	// #3414 adds a runner script that runs `git apply`, patch omitted: an
	// added file is read whole at H, so the patching is introduced by the PR.
	code, v, _ = edgeRun(t, "bad-s7-nopatch", "3414")
	if code != exitRejected {
		t.Errorf("#3414: exit %d", code)
	}
	script := "inferencex-e2e/runners/mi355x-amds/prepare_engine.sh"
	noRun := map[int]edgeRow{
		1:  {status: "FAIL", want: []string{"No passing sweep"}},
		2:  {status: "FAIL", want: []string{"No qualifying in-PR run"}},
		3:  {status: "N/A"},
		5:  {status: "FAIL", want: []string{"Needs human review"}},
		6:  {status: "N/A"},
		7:  {status: "N/A"},
		9:  {status: "N/A"},
		11: {status: "N/A"},
		12: {status: "N/A"},
		13: {status: "N/A"},
		14: {status: "WARN", want: []string{"unverifiable"}},
		15: {status: "WARN", want: []string{"30123456789"}},
	}
	rows := badRows([]int{0, 4, 8}, map[int]edgeRow{
		10: {status: "FAIL", want: []string{script + ":5 applies a patch (git apply)", "no inferencex-e2e/docs/waiver/3414.md"}},
	})
	for n, r := range noRun {
		rows[n] = r
	}
	edgeAssert(t, "bad-s7-nopatch#3414", v, "REJECTED", rows)
	if strings.Contains(v.Checks[10].Reason, "pre-existing") {
		t.Errorf("#3414: the added script's patching is called pre-existing: %q", v.Checks[10].Reason)
	}

	// #3415 modifies a Python runner hook to `git apply`, patch omitted: it
	// cannot be scanned, so Checks 8 and 10 ask for review instead of passing.
	code, v, _ = edgeRun(t, "bad-s7-nopatch", "3415")
	if code != exitRejected {
		t.Errorf("#3415: exit %d", code)
	}
	hook := "inferencex-e2e/runners/mi355x-amds/hooks.py could not be scanned"
	rows = badRows([]int{0, 4}, map[int]edgeRow{
		8:  {status: "FAIL", want: []string{"Needs human review", hook}},
		10: {status: "FAIL", want: []string{"Needs human review", hook}},
	})
	for n, r := range noRun {
		rows[n] = r
	}
	edgeAssert(t, "bad-s7-nopatch#3415", v, "REJECTED", rows)
}

// S8: .github/verdict.yml on the default branch has an unknown key. The
// rules themselves are unknown, so no verdict is possible: exit 2 with one
// line naming the file and the key (the App refuses to verify too).
func TestBadRepoConfig(t *testing.T) {
	code, out, errOut := runCheckJSON(t, "--fixture", edgeDir("bad-s8-config"), "--date", "2026-11-20")
	if code != exitError || out != "" {
		t.Fatalf("exit %d, stdout %q; want exit 2 and no verdict", code, out)
	}
	line := strings.TrimSpace(errOut)
	if strings.Contains(line, "\n") || !strings.Contains(line, ".github/verdict.yml") || !strings.Contains(line, "sign_off_phrase") || !strings.Contains(line, "line 6") {
		t.Errorf("stderr %q: want one line naming .github/verdict.yml, line 6 and the key sign_off_phrase", errOut)
	}
}
