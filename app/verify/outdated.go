package verify

import (
	"context"
	"time"
)

// hideOutdated makes the PR's verdict comments show what stands: the
// verdict of its newest sign-off that was not withdrawn stays visible,
// every other one (superseded by a newer sign-off's verdict, or withdrawn)
// is hidden as outdated, and one hidden earlier whose verdict stands again
// (the newer sign-off was withdrawn) is shown again. It works from the
// ledger, so a redelivery or a restart changes nothing already done, and
// it only ever touches comments Verdict published (the node IDs its own
// publishing returned). Hiding is a courtesy to readers: a failure is
// logged, and the next verdict on the PR tries again.
func (v *Verifier) hideOutdated(ctx context.Context, gh GitHub, owner, repo string, number int, enabled bool) {
	if !enabled || v.Ledger == nil {
		return
	}
	log := v.logger().With("repo", owner+"/"+repo, "pr", number)
	all, err := v.Ledger.SignOffs(ctx, owner+"/"+repo, number)
	if err != nil {
		log.Warn("reading the PR's sign-offs to hide outdated verdicts", "err", err)
		return
	}
	var standing *SignOffRecord
	for i := range all {
		r := &all[i]
		if r.State == StateWithdrawn || r.Verdict == "" {
			continue
		}
		if standing == nil || newerThan(r.SignedAt, r.Key, standing.SignedAt, standing.Key) {
			standing = r
		}
	}
	for _, r := range all {
		if r.CommentNodeID == "" || r.Verdict == "" {
			continue
		}
		hide := standing == nil || r.Key != standing.Key
		if hide == !r.MinimizedAt.IsZero() {
			continue
		}
		what := "showing a verdict that stands again"
		if hide {
			what = "hiding an outdated verdict"
		}
		at, err := v.setHidden(ctx, gh, r.CommentNodeID, hide)
		if err != nil {
			log.Warn(what, "signoff", r.Key, "comment_url", r.CommentURL, "err", err)
			continue
		}
		if _, err := v.Ledger.SetMinimized(ctx, r.Repo, r.Key, r.CommentNodeID, at); err != nil {
			log.Warn(what, "signoff", r.Key, "err", err)
			continue
		}
		log.Info(what, "signoff", r.Key, "comment_url", r.CommentURL)
	}
}

// settleNotice hides (or shows again) Verdict's own notice nodeID on the
// PR, unless the ledger says it already is; like hideOutdated, a failure
// is logged and the next verdict tries again.
func (v *Verifier) settleNotice(ctx context.Context, gh GitHub, req Request, nodeID string, hide bool) {
	if nodeID == "" || v.Ledger == nil {
		return
	}
	log := v.logger().With("repo", req.Owner+"/"+req.Repo, "pr", req.Number)
	hidden, err := v.Ledger.NoticeMinimized(ctx, nodeID)
	if err != nil || hidden == hide {
		if err != nil {
			log.Warn("reading whether a notice is hidden", "err", err)
		}
		return
	}
	what := "showing a notice that holds again"
	if hide {
		what = "hiding a notice that no longer holds"
	}
	at, err := v.setHidden(ctx, gh, nodeID, hide)
	if err != nil {
		log.Warn(what, "err", err)
		return
	}
	if err := v.Ledger.SetNoticeMinimized(ctx, req.Owner+"/"+req.Repo, req.Number, nodeID, at); err != nil {
		log.Warn(what, "err", err)
		return
	}
	log.Info(what)
}

// setHidden hides Verdict's comment nodeID as outdated, or shows it again,
// and returns when it was hidden (zero: shown), for the ledger.
func (v *Verifier) setHidden(ctx context.Context, gh GitHub, nodeID string, hide bool) (time.Time, error) {
	if !hide {
		return time.Time{}, gh.UnminimizeComment(ctx, nodeID)
	}
	return v.now(), gh.MinimizeComment(ctx, nodeID)
}
