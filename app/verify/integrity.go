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
}

// Integrity is what a verification knows of who wrote the sign-off's
// current body.
type Integrity struct {
	// Tampered: someone other than its author changed the body.
	Tampered bool
	// Editor is who did, "" when that could not be determined.
	Editor string
	// Unknown says why the editor could not be determined; with Tampered
	// unset it is only a note on the row (nothing shows an edit).
	Unknown string
	// Since is when the tamper mark was set.
	Since time.Time
	// AuthenticSHA256 is the hash of the author's last version.
	AuthenticSHA256 string
	// GivenFor is the commit the sign-off's body was first assessed on,
	// when that is not the head being assessed now: a sign-off written
	// before a push says nothing of the code pushed after it.
	GivenFor string
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
		in := Integrity{Tampered: true, Editor: editor, Unknown: unknown, Since: now, AuthenticSHA256: hash}
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

// applyIntegrity makes Check 0 (who signed) say what the edit history
// found: a sign-off that its author did not write fails it, and a history
// that could not be read is noted on the row.
func applyIntegrity(rows []checks.Outcome, in Integrity, author string) []checks.Outcome {
	out := make([]checks.Outcome, len(rows))
	copy(out, rows)
	for i := range out {
		if out[i].Number != 0 {
			continue
		}
		r := &out[i].Result
		switch {
		case in.Tampered && in.Editor != "":
			r.Status, r.NeedsReview = checks.Fail, false
			r.Reason = checks.T(
				fmt.Sprintf("the sign-off was edited by @%s, not by its author @%s; the author must re-confirm by editing or posting it again", in.Editor, author),
				fmt.Sprintf("签核由 @%s 编辑，而非其作者 @%s；作者必须再次编辑或重新发布签核以重新确认", in.Editor, author))
		case in.Tampered:
			r.Status, r.NeedsReview = checks.Fail, false
			r.Reason = checks.T(
				fmt.Sprintf("the sign-off changed after its author @%s wrote it and the editor could not be determined (%s); the author must re-confirm by editing or posting it again", author, in.Unknown),
				fmt.Sprintf("签核在作者 @%s 撰写后被修改，且无法确定编辑者（%s）；作者必须再次编辑或重新发布签核以重新确认", author, codeSpan(in.Unknown)))
		case in.GivenFor != "":
			r.Status, r.NeedsReview = checks.Fail, false
			r.Reason = checks.T(
				fmt.Sprintf("the sign-off was given for commit %s and the head has moved since; @%s must re-confirm it for the new head by editing or posting it again", shortSHA(in.GivenFor), author),
				fmt.Sprintf("签核针对的是提交 %s，此后头部提交已变更；@%s 必须通过再次编辑或重新发布签核，为新的头部提交重新确认", shortSHA(in.GivenFor), author))
		case in.Unknown != "":
			r.Reason = checks.T(
				r.Reason.EN+fmt.Sprintf(" (Whether the sign-off was edited, and by whom, could not be determined: %s.)", in.Unknown),
				r.Reason.ZH+fmt.Sprintf("（无法确定签核是否被编辑以及由谁编辑：%s。）", codeSpan(in.Unknown)))
		}
	}
	return out
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return "`" + sha[:12] + "`"
	}
	return "`" + sha + "`"
}

// codeSpan shows an error's English text verbatim inside Chinese prose.
func codeSpan(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
