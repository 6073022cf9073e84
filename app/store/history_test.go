package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

func TestHistory(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		t0 := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		ver := &store.Verification{
			Verdict: "REJECTED", BodySHA256: strings.Repeat("ab", 32), CommentURL: "https://github.com/o/r/pull/1#issuecomment-9",
			Rows: []store.CheckRow{
				{Check: 0, NameEN: "CODEOWNER", NameZH: "代码所有者", Status: "FAIL", ReasonEN: "not an owner", ReasonZH: "不是所有者",
					Evidence: []store.Evidence{{Label: "CODEOWNERS", URL: "https://x/CODEOWNERS"}, {Label: "owner", Value: "@a"}}},
				{Check: 14, NameEN: "Pareto", NameZH: "帕累托", Advisory: true, Status: "WARN", ReasonEN: "3 points", ReasonZH: "3 个点"},
			},
			Duration: 1500 * time.Millisecond, APICalls: 42,
		}
		events := []store.Event{
			{Kind: store.KindVerification, Repo: "o/r", PR: 1, SHA: "aaa", SignOffKey: "issuecomment-1", Actor: "alice", DeliveryID: "d1", At: t0, Verification: ver},
			{Kind: store.KindCommand, Repo: "o/r", PR: 1, Actor: "bob", Detail: "/verdict recheck", DeliveryID: "d2", At: t0.Add(time.Minute)},
			{Kind: store.KindBypass, Repo: "o/r", PR: 1, SHA: "aaa", SignOffKey: "issuecomment-1", Actor: "admin", Detail: "check 14: ok", At: t0.Add(2 * time.Minute)},
			{Kind: store.KindTamper, Repo: "o/r", PR: 1, SignOffKey: "issuecomment-1", Actor: "mallory", At: t0.Add(3 * time.Minute)},
			{Kind: store.KindWithdrawal, Repo: "o/r", PR: 1, SignOffKey: "issuecomment-1", Actor: "alice", At: t0.Add(4 * time.Minute)},
			{Kind: store.KindCommand, Repo: "o/r", PR: 2, Actor: "carol", Detail: "/use 5", At: t0},
		}
		for _, e := range events {
			if err := s.RecordEvent(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.History(ctx, "O/R", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 5 {
			t.Fatalf("history has %d events, want 5: %+v", len(got), got)
		}
		for i, e := range got {
			want := events[4-i]
			if !reflect.DeepEqual(e, want) {
				t.Errorf("event %d:\n got %+v\nwant %+v", i, e, want)
			}
		}
		if got[4].Verification == nil || !reflect.DeepEqual(*got[4].Verification, *ver) {
			t.Errorf("verification round trip: %+v", got[4].Verification)
		}
		newest, err := s.History(ctx, "o/r", 1, 2)
		if err != nil || len(newest) != 2 || newest[0].Kind != store.KindWithdrawal {
			t.Fatalf("History(limit 2) = %+v, %v", newest, err)
		}
		// The verification is in the older verdict trail too, with its delivery.
		vs, err := s.Verdicts(ctx, "o/r", 1)
		if err != nil || len(vs) != 1 || vs[0].DeliveryID != "d1" || vs[0].Verdict != "REJECTED" {
			t.Fatalf("Verdicts = %+v, %v", vs, err)
		}
		if none, err := s.History(ctx, "o/r", 3, 0); err != nil || len(none) != 0 {
			t.Fatalf("History of an unknown PR = %+v, %v", none, err)
		}
	})
}

func TestRecordEventRejectsIncomplete(t *testing.T) {
	s := open(t, storetest.SQLiteURL(t))
	for _, e := range []store.Event{
		{Repo: "o/r", PR: 1},
		{Kind: store.KindCommand, PR: 1},
		{Kind: store.KindCommand, Repo: "o/r"},
		{Kind: store.KindVerification, Repo: "o/r", PR: 1},
		{Kind: store.KindBypass, Repo: "o/r", PR: 1, Verification: &store.Verification{}},
	} {
		if err := s.RecordEvent(context.Background(), e); err == nil {
			t.Errorf("RecordEvent(%+v) succeeded", e)
		}
	}
}

// A command redelivered to a retried job, or a bypass every verification
// of the commit sees, is one event; a verification is always a new one.
func TestRecordEventDedupes(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		t0 := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		bypass := store.Event{Kind: store.KindBypass, Repo: "o/r", PR: 1, SHA: "aaa", Actor: "admin", Detail: "check 14: ok", At: t0}
		cmd := store.Event{Kind: store.KindCommand, Repo: "o/r", PR: 1, Actor: "bob", Detail: "/verdict recheck", DeliveryID: "d1", At: t0}
		ver := store.Event{Kind: store.KindVerification, Repo: "o/r", PR: 1, SHA: "aaa", At: t0, Verification: &store.Verification{Verdict: "PASS"}}
		for i := range 2 {
			for _, e := range []store.Event{bypass, cmd, ver} {
				e.At = e.At.Add(time.Duration(i) * time.Minute)
				if err := s.RecordEvent(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
		}
		cmd.DeliveryID = "d2"
		if err := s.RecordEvent(ctx, cmd); err != nil {
			t.Fatal(err)
		}
		got, err := s.History(ctx, "o/r", 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		count := map[store.EventKind]int{}
		for _, e := range got {
			count[e.Kind]++
		}
		if count[store.KindBypass] != 1 || count[store.KindCommand] != 2 || count[store.KindVerification] != 2 {
			t.Fatalf("recorded %v", count)
		}
	})
}

// TestVerificationRecordedOnce: a job run again after it published (its
// process died before the job was marked done) verifies the same delivery
// to the same verdict; the history keeps one row, and a later delivery's
// verification gets its own.
func TestVerificationRecordedOnce(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		ver := &store.Verification{Verdict: "PASS", BodySHA256: strings.Repeat("cd", 32)}
		e := store.Event{Kind: store.KindVerification, Repo: "o/r", PR: 3, SHA: "aaa", SignOffKey: "issuecomment-3", DeliveryID: "d1", Verification: ver}
		later := e
		later.DeliveryID = "d2"
		for _, ev := range []store.Event{e, e, later} {
			if err := s.RecordEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.History(ctx, "o/r", 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].DeliveryID != "d2" || got[1].DeliveryID != "d1" {
			t.Errorf("history = %+v; want one row per delivery", got)
		}
		verdicts, err := s.Verdicts(ctx, "o/r", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(verdicts) != 2 {
			t.Errorf("audit trail has %d verdicts; want 2", len(verdicts))
		}
	})
}
