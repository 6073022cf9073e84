package verify

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

func TestAuthenticity(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	body := "As a PR reviewer and CODEOWNER, I have reviewed this"
	hash := bodyHash(body)
	comment := checks.SignOff{Key: "issuecomment-1", Kind: checks.KindConversation, Author: "owner-a", Body: body, UpdatedAt: now}
	delivered := signoff.StampOf(body, now)
	review := checks.SignOff{Key: "pullrequestreview-2", Kind: checks.KindReview, Author: "owner-a", Body: body}
	authentic := &SignOffRecord{Author: "owner-a", BodySHA256: hash, State: StateAuthentic}
	changed := &SignOffRecord{Author: "owner-a", BodySHA256: "old", State: StateAuthentic}
	marked := &SignOffRecord{Author: "owner-a", BodySHA256: "old", State: StateTampered, Editor: "writer-x", StateAt: now.Add(-time.Hour)}
	edit := func(editor string) editHistory {
		return func(context.Context, string) (string, time.Time, error) { return editor, now, nil }
	}
	never := func(context.Context, string) (string, time.Time, error) { return "", time.Time{}, nil }
	noGraphQL := func(context.Context, string) (string, time.Time, error) {
		return "", time.Time{}, errors.New("non-200 OK status code: 404 Not Found")
	}
	down := func(context.Context, string) (string, time.Time, error) {
		return "", time.Time{}, retry.Transient(errors.New("502"))
	}
	unused := func(context.Context, string) (string, time.Time, error) {
		return "", time.Time{}, errors.New("the edit history was read")
	}
	for _, tt := range []struct {
		name    string
		req     Request
		so      checks.SignOff
		edited  bool // REST shows an edit
		rec     *SignOffRecord
		history editHistory
		// want: "ok", "tampered by X", "tampered, unknown", "ok, noted"
		want string
		err  bool
	}{
		{"the author's edit delivery", Request{Action: "edited", Actor: "Owner-A", Delivered: delivered}, comment, true, changed, unused, "ok", false},
		{"another user's edit delivery", Request{Action: "edited", Actor: "writer-x", Delivered: delivered}, comment, true, authentic, unused, "tampered by writer-x", false},
		{"the author's edit clears a mark", Request{Action: "edited", Actor: "owner-a", Delivered: delivered}, comment, true, marked, unused, "ok", false},
		// A delivery names the editor of the body it carried only.
		{"the author's late delivery of an older body", Request{Action: "edited", Actor: "owner-a", Delivered: signoff.StampOf("older", time.Time{})}, comment, true, marked, edit("writer-x"), "tampered by writer-x", false},
		{"another's late delivery of an older body", Request{Action: "edited", Actor: "writer-x", Delivered: signoff.StampOf("older", time.Time{})}, comment, true, authentic, unused, "ok", false},
		{"a delivery of the same text, written again since", Request{Action: "edited", Actor: "owner-a", Delivered: signoff.StampOf(body, now.Add(-time.Hour))}, comment, true, marked, edit("writer-x"), "tampered by writer-x", false},
		{"a delivery without a stamp", Request{Action: "edited", Actor: "owner-a"}, comment, true, marked, edit("writer-x"), "tampered by writer-x", false},
		{"a posting, unedited", Request{Action: "created", Actor: "owner-a"}, comment, false, nil, unused, "ok", false},
		{"a review just submitted", Request{Action: "submitted", Actor: "owner-a"}, review, false, nil, unused, "ok", false},
		{"the body the ledger holds", Request{Action: "recheck", Actor: "m"}, comment, true, authentic, unused, "ok", false},
		{"an unedited comment, never seen", Request{Action: "recheck"}, comment, false, nil, unused, "ok", false},
		{"changed, the history names the author", Request{Action: "recheck"}, comment, true, changed, edit("owner-a"), "ok", false},
		{"changed, the history names another", Request{Action: "recheck"}, comment, true, changed, edit("writer-y"), "tampered by writer-y", false},
		{"changed, the editor's account is gone", Request{Action: "recheck"}, comment, true, changed, edit(""), "tampered, unknown", false},
		{"changed, no GraphQL", Request{Action: "recheck"}, comment, true, changed, noGraphQL, "tampered, unknown", false},
		{"edited per REST, no GraphQL, no ledger", Request{}, comment, true, nil, noGraphQL, "tampered, unknown", false},
		{"a review, no GraphQL, no ledger", Request{}, review, false, nil, noGraphQL, "ok, noted", false},
		{"a review never edited", Request{}, review, false, nil, never, "ok", false},
		{"a review edited by another", Request{}, review, false, nil, edit("writer-x"), "tampered by writer-x", false},
		{"the mark stays at a recheck", Request{Action: "recheck"}, comment, true, marked, edit("writer-x"), "tampered by writer-x", false},
		{"the mark stays without GraphQL", Request{Action: "recheck"}, comment, true, marked, noGraphQL, "tampered by writer-x", false},
		{"a missed author edit clears the mark", Request{Action: "recheck"}, comment, true, marked, edit("owner-a"), "ok", false},
		{"GitHub down is no judgement", Request{Action: "recheck"}, comment, true, changed, down, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := authenticity(context.Background(), tt.history, tt.req, tt.so, signOffMeta{nodeID: "N", edited: tt.edited}, tt.rec, now)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			if tt.err {
				if !retry.IsTransient(err) {
					t.Errorf("err %v is not transient", err)
				}
				return
			}
			got := "ok"
			switch {
			case in.Tampered && in.Editor != "":
				got = "tampered by " + in.Editor
			case in.Tampered:
				got = "tampered, unknown"
			case in.Unknown != "":
				got = "ok, noted"
			}
			if got != tt.want {
				t.Fatalf("got %s (%+v), want %s", got, in, tt.want)
			}
			switch {
			case !in.Tampered && in.AuthenticSHA256 != hash:
				t.Errorf("an authentic body keeps hash %q", in.AuthenticSHA256)
			case in.Tampered && tt.rec != nil && in.AuthenticSHA256 != tt.rec.BodySHA256:
				t.Errorf("a tampered body replaced the authentic hash")
			case in.Tampered && tt.rec != nil && tt.rec.State == StateTampered && !in.Since.Equal(tt.rec.StateAt):
				t.Errorf("the mark's time moved: %v", in.Since)
			}
		})
	}
}
