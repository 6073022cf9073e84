package details

import (
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
)

// The page leads with the verdict that stands (the store's), marks the
// verification behind it and the superseded ones, and lists failing rows
// first.
func TestPageLeadsWithTheStandingVerdict(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	head, old := strings.Repeat("a", 40), strings.Repeat("b", 40)
	ver := func(key, sha, verdict string, at time.Time, rows ...store.CheckRow) store.Event {
		return store.Event{Kind: store.KindVerification, Repo: "o/r", PR: 7, SHA: sha, SignOffKey: key, At: at,
			Verification: &store.Verification{Verdict: verdict, Rows: rows}}
	}
	row := func(n int, status string) store.CheckRow {
		return store.CheckRow{Check: n, Status: status, ReasonEN: "row `" + status + "`", ReasonZH: "行"}
	}
	// Newest first: a recheck of the older sign-off A (PASS) came after B's
	// REJECTED verdict, which still stands: B is the newest sign-off.
	events := []store.Event{
		ver("issuecomment-1", head, "PASS", at.Add(3*time.Minute), row(0, "PASS")),
		ver("issuecomment-2", head, "REJECTED", at.Add(2*time.Minute), row(0, "PASS"), row(3, "N/A"), row(5, "FAIL"), row(14, "WARN")),
		ver("issuecomment-2", old, "PASS", at.Add(time.Minute), row(0, "PASS")),
		ver("issuecomment-1", old, "PASS", at, row(0, "PASS")),
	}
	signoffs := []store.SignOff{
		{Key: "issuecomment-1", SignedAt: at, State: store.SignOffAuthentic, Verdict: "PASS", AssessedSHA: head},
		{Key: "issuecomment-2", SignedAt: at.Add(time.Minute), State: store.SignOffAuthentic, Verdict: "REJECTED", AssessedSHA: head,
			CommentURL: "https://github.com/o/r/pull/7#issuecomment-9"},
	}
	v := buildPage("o/r", 7, events, signoffs)
	if v.Now == nil || v.Now.Verdict != "REJECTED" || v.Now.Key != "issuecomment-2" || v.Now.CommentURL == "" {
		t.Fatalf("verdict now = %+v, want issuecomment-2's REJECTED", v.Now)
	}
	var current, superseded []int
	for i, it := range v.Items {
		switch {
		case it.Verification.Current:
			current = append(current, i)
		case it.Verification.Superseded:
			superseded = append(superseded, i)
		}
	}
	if len(current) != 1 || current[0] != 1 || len(superseded) != 3 {
		t.Errorf("current %v, superseded %v; want item 1 current and the other three superseded", current, superseded)
	}
	var order []string
	for _, r := range v.Items[1].Verification.Rows {
		order = append(order, r.Status)
	}
	if got := strings.Join(order, " "); got != "FAIL WARN PASS N/A" {
		t.Errorf("rows in the order %s, want failing first", got)
	}
	if got := string(v.Items[1].Verification.Rows[0].ReasonHTML); got != "row <code>FAIL</code>" {
		t.Errorf("reason rendered as %q", got)
	}

	// Every sign-off withdrawn: no verdict stands, nothing is current.
	for i := range signoffs {
		signoffs[i].State = store.SignOffWithdrawn
	}
	v = buildPage("o/r", 7, events, signoffs)
	if v.Now != nil || !v.Withdrawn || v.Items[0].Verification.Current || v.Items[0].Verification.Superseded {
		t.Errorf("all withdrawn: now %+v, withdrawn %v, first item %+v", v.Now, v.Withdrawn, v.Items[0].Verification)
	}
	// Nothing kept of the sign-offs (a history older than the ledger): no
	// card, no marks.
	if v = buildPage("o/r", 7, events, nil); v.Now != nil || v.Withdrawn {
		t.Errorf("no sign-offs kept: now %+v, withdrawn %v", v.Now, v.Withdrawn)
	}
}
