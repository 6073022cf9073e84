package localverify_test

import (
	"context"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/gitsource"
	"github.com/verdict-bot/verdict/app/gitsource/gitsourcetest"
	"github.com/verdict-bot/verdict/app/localverify"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/checklist"
	"github.com/verdict-bot/verdict/checks/inferencex"
)

// The review day is the UTC day: a commit made at 22:46 -0400 on Aug 3 is
// reviewed on Aug 4, the day a deprecation that ended on Aug 3 has passed.
func TestReviewDateIsTheUTCDay(t *testing.T) {
	r := gitsourcetest.New(t)
	r.Write(map[string]string{"README.md": "a\n"})
	r.Commit("base")
	r.Git("branch", "pr")
	repo, err := gitsource.Open(context.Background(), r.Dir, gitsource.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	at := time.Date(2026, 8, 3, 22, 46, 0, 0, time.FixedZone("EDT", -4*3600))
	ch, err := localverify.Prepare(context.Background(), repo, localverify.Request{Base: "main", Head: "pr", ReviewDate: at, Presets: []*checks.Preset{inferencex.Preset, checklist.Preset}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ch.PR.ReviewDate; !got.Equal(time.Date(2026, 8, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("review date %v, want 2026-08-04 UTC", got)
	}
}
