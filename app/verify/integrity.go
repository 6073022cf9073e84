package verify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
)

// Sign-off states a Ledger keeps (checks/inferencex/RULES.md, "Sign-off
// integrity").
const (
	StateAuthentic = "authentic"
	StateTampered  = "tampered"
	StateWithdrawn = "withdrawn"
)

// SignOffRecord is what the ledger keeps of one sign-off: the author and
// body hash of its last authentic version, its state, and the last verdict
// published for it.
type SignOffRecord struct {
	Repo, Key  string
	PR         int
	Author     string
	BodySHA256 string
	SignedAt   time.Time
	State      string
	Editor     string // who tampered with or withdrew it; "" when unknown
	StateAt    time.Time
	// AssessedSHA, Verdict and CommentURL: the last verdict published.
	AssessedSHA, Verdict, CommentURL string
	// AssessedBase is the base commit that verdict read its rules at.
	AssessedBase string
	// CommentNodeID is that verdict comment's GraphQL node ID ("" when
	// not known), MinimizedAt when Verdict hid it as outdated (zero:
	// shown).
	CommentNodeID string
	MinimizedAt   time.Time
}

// Ledger keeps sign-off records between verifications (the App's store).
// Without one (verdict check) every verification judges the sign-off's
// edit history afresh.
type Ledger interface {
	LookupSignOff(ctx context.Context, repo, key string) (SignOffRecord, bool, error)
	SignOffs(ctx context.Context, repo string, pr int) ([]SignOffRecord, error)
	PutSignOff(ctx context.Context, r SignOffRecord) error
	// FirstAssessed is the head commit of the first published verdict on
	// this exact body of the sign-off (ok false when there was none): the
	// commit its author was looking at when they gave it.
	FirstAssessed(ctx context.Context, repo string, pr int, key, bodySHA256 string) (sha string, ok bool, err error)
	// SetMinimized records that the sign-off's verdict comment nodeID was
	// hidden at (shown again: zero); it reports false when the sign-off's
	// comment is another by now.
	SetMinimized(ctx context.Context, repo, key, nodeID string, at time.Time) (bool, error)
	// NoticeMinimized and SetNoticeMinimized keep whether Verdict hid one
	// of its other notices (the invalid-configuration comment).
	NoticeMinimized(ctx context.Context, nodeID string) (bool, error)
	SetNoticeMinimized(ctx context.Context, repo string, pr int, nodeID string, at time.Time) error
	// OpenedRun and ClosedRun keep which check runs verifications opened
	// in progress and have not completed, so that one an attempt left
	// open (cut, superseded, lost) is found and completed (SettleRun).
	OpenedRun(ctx context.Context, r OpenRun) error
	ClosedRun(ctx context.Context, repo, key, sha string) error
}

// OpenRun is a check run a verification opened in progress: sign-off
// Key's on commit HeadSHA of PR Number in Owner/Repo, through App
// installation Installation.
type OpenRun struct {
	Owner, Repo  string
	Number       int
	Key, HeadSHA string
	Installation int64
	At           time.Time
}

// Integrity is what a verification knows of who wrote the sign-off's
// current body: the findings the rows read (checks.Authorship) and what the
// ledger keeps of them.
type Integrity struct {
	checks.Authorship
	// Since is when the tamper mark was set.
	Since time.Time
	// AuthenticSHA256 is the hash of the author's last version.
	AuthenticSHA256 string
}

// signOffMeta is what the REST read of a sign-off tells besides its text.
type signOffMeta struct {
	nodeID   string
	userType string
	// edited: the REST object shows an edit (updated_at after created_at);
	// reviews carry no edit time, so it is never set for them.
	edited bool
	// dismissed: a review whose state is DISMISSED.
	dismissed bool
}

// authenticity decides whether the sign-off's current body is its author's
// (checks/inferencex/RULES.md, "Sign-off integrity"). An edit delivery
// names its editor; otherwise a body the ledger already holds as authentic
// is, and anything else is judged from the comment's edit history
// (GraphQL). A transient failure is returned, never judged.
func authenticity(ctx context.Context, history editHistory, req Request, so checks.SignOff, meta signOffMeta, rec *SignOffRecord, now time.Time) (Integrity, error) {
	hash := bodyHash(so.Body)
	ok := Integrity{AuthenticSHA256: hash}
	tampered := func(editor, unknown string) Integrity {
		in := Integrity{Authorship: checks.Authorship{Tampered: true, Editor: editor, Unknown: unknown}, Since: now, AuthenticSHA256: hash}
		if rec != nil {
			in.AuthenticSHA256 = rec.BodySHA256
			if rec.State == StateTampered {
				in.Since = rec.StateAt
			}
		}
		return in
	}
	// An edit delivery names the editor of the body it carried. A delivery
	// that arrives late (or is redelivered) after a newer edit carries an
	// older body: its sender says nothing of the body read now, which the
	// edit history below then judges.
	if req.Action == "edited" && req.Actor != "" && req.Delivered.Describes(so.Body, so.UpdatedAt) {
		if strings.EqualFold(req.Actor, so.Author) {
			return ok, nil
		}
		return tampered(req.Actor, ""), nil
	}
	if rec != nil && rec.State == StateAuthentic && rec.BodySHA256 == hash && strings.EqualFold(rec.Author, so.Author) {
		return ok, nil
	}
	fresh := req.Action == "created" || req.Action == "submitted"
	if rec == nil && !meta.edited && (fresh || so.Kind != checks.KindReview) {
		// Nothing shows an edit: a comment's REST object carries its edit
		// time, and a review just submitted is its author's.
		return ok, nil
	}
	editor, at, err := history(ctx, meta.nodeID)
	if err != nil {
		if retry.IsTransient(err) || ctx.Err() != nil {
			return Integrity{}, fmt.Errorf("reading the edit history of %s: %w", so.Key, err)
		}
		why := oneLine(err)
		switch {
		case rec != nil && rec.State == StateTampered:
			return tampered(rec.Editor, why), nil
		case rec != nil || meta.edited:
			// It changed (or was edited) and nobody can say by whom.
			return tampered("", why), nil
		}
		ok.Unknown = why
		return ok, nil
	}
	switch {
	case rec != nil && rec.State == StateTampered:
		// The mark stays until the author edits the sign-off again: the
		// newest version is then the author's (an edit whose delivery
		// was missed counts too).
		if !at.IsZero() && strings.EqualFold(editor, so.Author) {
			return ok, nil
		}
		return tampered(rec.Editor, ""), nil
	case at.IsZero(), strings.EqualFold(editor, so.Author):
		return ok, nil
	case editor == "":
		return tampered("", "the edit history names no editor (a deleted account)"), nil
	}
	return tampered(editor, ""), nil
}

// editHistory names who made the current version of a comment or review
// and when (GitHub.LastEdit).
type editHistory func(ctx context.Context, nodeID string) (editor string, at time.Time, err error)

// lastEdit is gh's edit history; a sign-off without a node ID has none.
func lastEdit(gh GitHub) editHistory {
	return func(ctx context.Context, nodeID string) (string, time.Time, error) {
		if nodeID == "" {
			return "", time.Time{}, fmt.Errorf("the API gave the sign-off no node ID")
		}
		return gh.LastEdit(ctx, nodeID)
	}
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
