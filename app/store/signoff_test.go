package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/store"
	"github.com/verdict-bot/verdict/app/store/storetest"
)

func TestSignOffRecords(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		at := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
		if _, ok, err := s.LookupSignOff(ctx, "O/R", "issuecomment-1"); err != nil || ok {
			t.Fatalf("lookup before put: ok=%v err=%v", ok, err)
		}
		a := store.SignOff{Repo: "o/r", Key: "issuecomment-1", PR: 7, Author: "owner-a", BodySHA256: "aa",
			SignedAt: at, State: store.SignOffAuthentic, StateAt: at}
		b := store.SignOff{Repo: "o/r", Key: "pullrequestreview-2", PR: 7, Author: "owner-b", BodySHA256: "bb",
			SignedAt: at.Add(time.Hour), State: store.SignOffAuthentic, StateAt: at.Add(time.Hour),
			AssessedSHA: "0123", Verdict: "PASS", CommentURL: "https://x/1"}
		other := store.SignOff{Repo: "o/r", Key: "issuecomment-3", PR: 8, Author: "owner-a", State: store.SignOffAuthentic}
		for _, so := range []store.SignOff{b, a, other} {
			if err := s.PutSignOff(ctx, so); err != nil {
				t.Fatal(err)
			}
		}
		// A tamper mark replaces the state and keeps the authentic version.
		a.State, a.Editor, a.StateAt = store.SignOffTampered, "writer-x", at.Add(2*time.Hour)
		a.Repo = "O/R" // owner and name are case-insensitive
		if err := s.PutSignOff(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.LookupSignOff(ctx, "o/R", "issuecomment-1")
		if err != nil || !ok {
			t.Fatalf("lookup: ok=%v err=%v", ok, err)
		}
		a.Repo = "o/r"
		if got != a {
			t.Fatalf("lookup = %+v\nwant %+v", got, a)
		}
		list, err := s.SignOffs(ctx, "O/r", 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Key != a.Key || list[1] != b {
			t.Fatalf("sign-offs of #7 = %+v, want a then b", list)
		}
	})
}

// A verdict comment's minimization survives the sign-off's later records
// (a re-verification, a withdrawal) while the comment stays the same, and
// is dropped when the comment was posted anew.
func TestMinimizedFollowsTheComment(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		so := store.SignOff{Repo: "o/r", Key: "issuecomment-1", PR: 7, Author: "owner-a", State: store.SignOffAuthentic,
			SignedAt: at, StateAt: at, Verdict: "PASS", CommentURL: "https://x/1", CommentNodeID: "IC_1"}
		if err := s.PutSignOff(ctx, so); err != nil {
			t.Fatal(err)
		}
		get := func() store.SignOff {
			t.Helper()
			got, _, err := s.LookupSignOff(ctx, "o/r", so.Key)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		for _, tc := range []struct {
			name    string
			put     *store.SignOff
			minNode string
			minAt   time.Time
			changed bool
			wantMin bool
			wantID  string
		}{
			{name: "minimized", minNode: "IC_1", minAt: at, changed: true, wantMin: true, wantID: "IC_1"},
			{name: "another comment's minimization is not this one's", minNode: "IC_9", minAt: at, wantMin: true, wantID: "IC_1"},
			{name: "a later record without a node ID keeps both", put: &store.SignOff{Repo: "o/r", Key: so.Key, PR: 7,
				State: store.SignOffWithdrawn, Verdict: "PASS"}, wantMin: true, wantID: "IC_1"},
			{name: "the same comment re-verified stays hidden", put: &so, wantMin: true, wantID: "IC_1"},
			{name: "shown again", minNode: "IC_1", changed: true, wantID: "IC_1"},
			{name: "hidden again", minNode: "IC_1", minAt: at, changed: true, wantMin: true, wantID: "IC_1"},
			{name: "a comment posted anew starts shown", put: &store.SignOff{Repo: "o/r", Key: so.Key, PR: 7,
				State: store.SignOffAuthentic, CommentNodeID: "IC_2"}, wantID: "IC_2"},
		} {
			if tc.put != nil {
				if err := s.PutSignOff(ctx, *tc.put); err != nil {
					t.Fatal(err)
				}
			} else {
				changed, err := s.SetMinimized(ctx, "O/R", so.Key, tc.minNode, tc.minAt)
				if err != nil || changed != tc.changed {
					t.Errorf("%s: SetMinimized changed=%v, %v; want %v", tc.name, changed, err, tc.changed)
				}
			}
			got := get()
			if !got.MinimizedAt.IsZero() != tc.wantMin || got.CommentNodeID != tc.wantID {
				t.Errorf("%s: minimized at %v, node %q; want minimized=%v, node %q", tc.name, got.MinimizedAt,
					got.CommentNodeID, tc.wantMin, tc.wantID)
			}
		}
	})
}

func TestNoticeMinimized(t *testing.T) {
	storetest.Engines(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := open(t, url)
		at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		check := func(want bool) {
			t.Helper()
			if got, err := s.NoticeMinimized(ctx, "IC_5"); err != nil || got != want {
				t.Fatalf("minimized = %v, %v; want %v", got, err, want)
			}
		}
		check(false)
		for range 2 { // recording it twice is once
			if err := s.SetNoticeMinimized(ctx, "O/R", 3, "IC_5", at); err != nil {
				t.Fatal(err)
			}
		}
		check(true)
		if err := s.SetNoticeMinimized(ctx, "O/R", 3, "IC_5", time.Time{}); err != nil {
			t.Fatal(err)
		}
		check(false)
	})
}
