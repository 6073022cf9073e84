package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/verdict-bot/verdict/app/ghclient"
	"github.com/verdict-bot/verdict/app/publish"
	"github.com/verdict-bot/verdict/app/retry"
	"github.com/verdict-bot/verdict/checks"
	"github.com/verdict-bot/verdict/checks/format/signoff"
)

// record reads what the ledger keeps of a sign-off (nil when nothing, or
// no ledger).
func (v *Verifier) record(ctx context.Context, req Request, key string) (*SignOffRecord, error) {
	if v.Ledger == nil {
		return nil, nil
	}
	r, ok, err := v.Ledger.LookupSignOff(ctx, req.Owner+"/"+req.Repo, key)
	if err != nil {
		// The database is Verdict's own: wait for it like for GitHub.
		return nil, retry.Transient(err)
	}
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// givenFor is the commit the sign-off's current body was given for when
// that is not head ("" otherwise). The author's own delivery of this very
// body gives it now, whatever an earlier identical text was given for.
func (v *Verifier) givenFor(ctx context.Context, req Request, so checks.SignOff, in Integrity, head string) (string, error) {
	if v.Ledger == nil || in.Tampered {
		return "", nil
	}
	if strings.EqualFold(req.Actor, so.Author) && req.Delivered.Describes(so.Body, so.UpdatedAt) {
		return "", nil
	}
	sha, ok, err := v.Ledger.FirstAssessed(ctx, req.Owner+"/"+req.Repo, req.Number, so.Key, bodyHash(so.Body))
	if err != nil {
		return "", retry.Transient(err)
	}
	if !ok || sha == head {
		return "", nil
	}
	return sha, nil
}

// withdrawn is why a sign-off that was taken back is not verified again
// ("" when it was not).
func withdrawn(meta signOffMeta, rec *SignOffRecord) string {
	switch {
	case meta.dismissed:
		return "the sign-off review was dismissed"
	case rec != nil && rec.State == StateWithdrawn:
		return "the sign-off was withdrawn"
	}
	return ""
}

// standing returns the newest sign-off of the PR, other than except, whose
// verdict stands for commit sha: not withdrawn, with a verdict on that
// commit. A tampered sign-off's verdict (REJECTED) stands like any other.
func (v *Verifier) standing(ctx context.Context, owner, repo string, number int, except, sha string) (*SignOffRecord, error) {
	if v.Ledger == nil {
		return nil, nil
	}
	all, err := v.Ledger.SignOffs(ctx, owner+"/"+repo, number)
	if err != nil {
		return nil, retry.Transient(err)
	}
	var best *SignOffRecord
	for i := range all {
		r := &all[i]
		if r.Key == except || r.State == StateWithdrawn || r.AssessedSHA != sha || r.Verdict == "" {
			continue
		}
		if best == nil || newerThan(r.SignedAt, r.Key, best.SignedAt, best.Key) {
			best = r
		}
	}
	return best, nil
}

// Standing returns the newest sign-off of the PR whose verdict stands for
// commit sha (nil when none, or without a ledger): what a merge queue
// relies on.
func (v *Verifier) Standing(ctx context.Context, owner, repo string, number int, sha string) (*SignOffRecord, error) {
	return v.standing(ctx, owner, repo, number, "", sha)
}

func newerThan(at time.Time, key string, than time.Time, thanKey string) bool {
	if !at.Equal(than) {
		return at.After(than)
	}
	return key > thanKey
}

// newerStanding is the verdict of a newer sign-off than so that stands for
// sha (nil when none): then so's verification leaves the shared status and
// check run to it.
func (v *Verifier) newerStanding(ctx context.Context, req Request, so checks.SignOff, sha string) (*publish.Standing, error) {
	r, err := v.standing(ctx, req.Owner, req.Repo, req.Number, so.Key, sha)
	if err != nil || r == nil || !newerThan(r.SignedAt, r.Key, so.CreatedAt, so.Key) {
		return nil, err
	}
	return standingOf(r), nil
}

// remember keeps the sign-off's authentic version, integrity state and
// verdict after a published verification.
func (v *Verifier) remember(ctx context.Context, req Request, pr *checks.PR, in Integrity, overall checks.Overall, c publish.Published) error {
	if v.Ledger == nil {
		return nil
	}
	so := pr.SignOff
	r := SignOffRecord{Repo: req.Owner + "/" + req.Repo, Key: so.Key, PR: req.Number, Author: so.Author,
		BodySHA256: in.AuthenticSHA256, SignedAt: so.CreatedAt, State: StateAuthentic, StateAt: v.now(),
		AssessedSHA: pr.HeadSHA, AssessedBase: pr.BaseTip, Verdict: string(overall), CommentURL: c.CommentURL,
		CommentNodeID: c.NodeID}
	if in.Tampered {
		r.State, r.Editor, r.StateAt = StateTampered, in.Editor, in.Since
	}
	return v.mark(ctx, r, req.DeliveryID)
}

// mark stores a sign-off record. Every tamper mark and withdrawal goes
// through here (one info line each), so an audit log can be attached in
// one place.
func (v *Verifier) mark(ctx context.Context, r SignOffRecord, deliveryID string) error {
	if r.State != StateAuthentic {
		v.logger().Info("sign-off "+r.State, "repo", r.Repo, "pr", r.PR, "signoff", r.Key, "head_sha", r.AssessedSHA,
			"delivery_id", deliveryID, "author", r.Author, "editor", r.Editor, "at", r.StateAt)
	}
	if err := v.Ledger.PutSignOff(ctx, r); err != nil {
		return retry.Transient(fmt.Errorf("recording sign-off %s: %w", r.Key, err))
	}
	return nil
}

// WithdrawRequest names a sign-off that was taken back.
type WithdrawRequest struct {
	Owner, Repo string
	Number      int
	SignOff     signoff.Ref
	// How is "deleted" (a comment) or "dismissed" (a review).
	How string
	// By is the delivery's sender: who deleted or dismissed it.
	By         string
	DeliveryID string
}

// Withdraw settles a sign-off that was deleted or whose review was
// dismissed: its verdict comment says "withdrawn" (keeping what was
// assessed), and the commit it assessed shows the verdict of the newest
// other sign-off that stands for it, or fails "sign-off withdrawn". The
// delivery is a hint: the sign-off is read again, and one that is still
// there (or a review not dismissed) is left alone.
func (v *Verifier) Withdraw(ctx context.Context, gh GitHub, req WithdrawRequest) error {
	log := v.logger().With("repo", req.Owner+"/"+req.Repo, "pr", req.Number, "signoff", req.SignOff.Key(), "delivery_id", req.DeliveryID)
	if v.Publisher == nil {
		return errors.New("withdrawing a sign-off: no publisher")
	}
	so, meta, err := fetchSignOff(ctx, gh, req.Owner, req.Repo, req.Number, req.SignOff)
	switch {
	case err == nil && !meta.dismissed:
		log.Info("withdrawal not applied: the sign-off is still there", "how", req.How)
		return nil
	case err != nil && !ghclient.IsNotFound(err):
		return err
	}
	cfg, err := v.configuration(ctx, gh, req.Owner, req.Repo, req.Number)
	if err != nil {
		return err
	}
	rec, err := v.record(ctx, Request{Owner: req.Owner, Repo: req.Repo}, req.SignOff.Key())
	if err != nil {
		return err
	}
	w := publish.Withdrawal{
		Target: publish.Target{Client: gh, Config: cfg, Owner: req.Owner, Repo: req.Repo, Number: req.Number, Key: req.SignOff.Key()},
		Author: loginOrEmpty(so.Author), By: loginOrEmpty(req.By), How: req.How,
		StandingFor: func(ctx context.Context, sha string) (*publish.Standing, error) {
			return v.standingVerdict(ctx, req, sha)
		},
	}
	if rec != nil {
		w.HeadSHA, w.Author = rec.AssessedSHA, loginOrEmpty(rec.Author)
	}
	res, err := v.Publisher.Withdraw(ctx, w)
	if err != nil {
		return fmt.Errorf("publishing the withdrawal: %w", err)
	}
	if res.HeadSHA == "" {
		log.Info("sign-off withdrawn before any verdict was published", "how", req.How)
	}
	if v.Ledger != nil {
		r := SignOffRecord{Repo: req.Owner + "/" + req.Repo, Key: req.SignOff.Key(), PR: req.Number, Author: w.Author}
		if rec != nil {
			r = *rec
		}
		r.State, r.Editor, r.StateAt = StateWithdrawn, req.By, v.now()
		if res.HeadSHA != "" {
			r.AssessedSHA = res.HeadSHA
		}
		if err := v.mark(ctx, r, req.DeliveryID); err != nil {
			return err
		}
	}
	if res.HeadSHA != "" {
		v.closedRun(ctx, req.Owner, req.Repo, req.SignOff.Key(), res.HeadSHA)
	}
	v.hideOutdated(ctx, gh, req.Owner, req.Repo, req.Number, cfg.MinimizeOutdatedEnabled())
	standing := ""
	if res.Standing != nil {
		standing = res.Standing.Key
	}
	log.Info("withdrawn", "how", req.How, "actor", req.By, "head_sha", res.HeadSHA, "comment_url", res.CommentURL, "standing", standing)
	return nil
}

// standingVerdict is the verdict the shared status shows for sha once
// req's sign-off is gone, nil when no other sign-off's verdict stands.
func (v *Verifier) standingVerdict(ctx context.Context, req WithdrawRequest, sha string) (*publish.Standing, error) {
	r, err := v.standing(ctx, req.Owner, req.Repo, req.Number, req.SignOff.Key(), sha)
	if err != nil || r == nil {
		return nil, err
	}
	return standingOf(r), nil
}

// loginOrEmpty drops a login that does not have GitHub's shape.
func loginOrEmpty(l string) string {
	if loginRE.MatchString(l) && !strings.Contains(l, " ") {
		return l
	}
	return ""
}

// standingOf is what the shared status shows of a sign-off's verdict (nil
// for no record).
func standingOf(r *SignOffRecord) *publish.Standing {
	if r == nil {
		return nil
	}
	return &publish.Standing{Key: r.Key, Overall: checks.Overall(r.Verdict), CommentURL: r.CommentURL}
}
