package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/verify"
)

// The ledger adds a tamper mark or a withdrawal to the PR's history once,
// when it is set, not at every verification that keeps it.
func TestLedgerRecordsMarksInHistory(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := ledger{st}
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	r := verify.SignOffRecord{Repo: "o/r", Key: "issuecomment-1", PR: 7, Author: "owner-a", BodySHA256: "aa",
		State: verify.StateAuthentic, StateAt: at, AssessedSHA: strings.Repeat("a", 40), Verdict: "PASS"}
	steps := []func(){
		func() {},
		func() { r.State, r.Editor = verify.StateTampered, "writer-x" },
		func() { r.Verdict = "REJECTED" }, // re-verified, still tampered
		func() { r.State, r.Editor = verify.StateAuthentic, "" },
		func() { r.State, r.Editor = verify.StateWithdrawn, "owner-a" },
	}
	for _, step := range steps {
		step()
		if err := l.PutSignOff(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := st.History(ctx, "o/r", 7, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, string(e.Kind)+": "+e.Detail)
	}
	want := []string{
		"tamper: edited by @writer-x, not by its author @owner-a / 由 @writer-x 编辑，而非其作者 @owner-a",
		"withdrawal: withdrawn by @owner-a / 已被 @owner-a 撤回",
	}
	slices.Sort(got) // the history's order is its own business
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	back, ok, err := l.LookupSignOff(ctx, "O/R", r.Key)
	if err != nil || !ok || back != r {
		t.Errorf("lookup = %+v, %v, %v; want %+v", back, ok, err, r)
	}
}
