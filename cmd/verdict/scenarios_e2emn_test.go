package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// e2emnRow is the expected status of one check row and substrings its
// English reason must contain.
type e2emnRow struct {
	status string
	reason []string
}

type e2emnVerdict struct {
	Verdict string `json:"verdict"`
	Checks  []struct {
		Number int    `json:"number"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"checks"`
}

// e2emnCheck runs `verdict check` on a fixture and asserts the overall
// verdict, the exit code and every one of the 16 rows.
func e2emnCheck(t *testing.T, fixture, verdict string, code int, rows map[int]e2emnRow) {
	t.Helper()
	var out, errb bytes.Buffer
	dir := filepath.Join("..", "..", "testdata", "fixtures", fixture)
	got := cmdCheck(context.Background(), []string{"--fixture", dir, "--date", "2026-11-20", "--format", "json"}, &out, &errb)
	if got != code {
		t.Fatalf("%s: exit code %d, want %d\nstderr: %s\n%s", fixture, got, code, errb.String(), out.String())
	}
	var v e2emnVerdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%s: invalid JSON: %v\n%s", fixture, err, out.String())
	}
	if v.Verdict != verdict {
		t.Errorf("%s: verdict %s, want %s", fixture, v.Verdict, verdict)
	}
	if len(v.Checks) != 16 {
		t.Fatalf("%s: %d rows, want 16", fixture, len(v.Checks))
	}
	for _, c := range v.Checks {
		want, ok := rows[c.Number]
		if !ok {
			t.Errorf("%s: no expectation for Check %d (%s — %s)", fixture, c.Number, c.Status, c.Reason)
			continue
		}
		if c.Status != want.status {
			t.Errorf("%s: Check %d is %s, want %s — %s", fixture, c.Number, c.Status, want.status, c.Reason)
		}
		for _, s := range want.reason {
			if !strings.Contains(c.Reason, s) {
				t.Errorf("%s: Check %d reason %q does not contain %q", fixture, c.Number, c.Reason, s)
			}
		}
	}
}

func e2emnPass(reason ...string) e2emnRow { return e2emnRow{"PASS", reason} }
func e2emnFail(reason ...string) e2emnRow { return e2emnRow{"FAIL", reason} }
func e2emnNA(reason ...string) e2emnRow   { return e2emnRow{"N/A", reason} }

// S15: multi-node dynamo-sglang disagg agentic MTP entry, green multi-node
// agentic runs, bmk_agentic_* artifacts (some as _conc<N> files), sign-off
// says "disagg, no recipe update required". gen 4: Check 3 FAILs.
func TestScenarioE2EMNS15Disagg(t *testing.T) {
	e2emnCheck(t, "e2emn-s15-disagg", "REJECTED", exitRejected, map[int]e2emnRow{
		0:  e2emnPass("@nv-owner-a owns inferencex-e2e/configs/nvidia-master.yaml"),
		1:  e2emnPass("Green benchmark + eval jobs on in-PR commit", "run 30123456789"),
		2:  e2emnPass("gsm8k", "0.952", "≥ 0.91", "same image"),
		3:  e2emnFail("No upstream recipe link in the additional detail section (dynamo-sglang disagg requires SGLang cookbook coverage)."),
		4:  e2emnPass("/use 30123456789"),
		5:  e2emnPass("All 17 current template items present"),
		6:  e2emnPass("Only open-source engine entries added."),
		7:  e2emnPass("dsv4 Agentic coding is active"),
		8:  e2emnPass("No architecture-override knobs; event publication not disabled."),
		9:  e2emnPass("dsv4-fp8-h200-dynamo-sglang-agentic-disagg-mtp", "/v1/chat/completions"),
		10: e2emnPass("No engine/serving-stack patching."),
		11: e2emnPass("pinned 2.49 = golden dsv4_mtp.yaml"),
		12: e2emnNA(),
		13: e2emnPass("stored BF16, served BF16"),
		14: e2emnPass("dsv4/agentic-coding/", "/fp8/30123456789/p90: 5/5 frontier points"),
		15: e2emnPass("search space"),
	})
}
